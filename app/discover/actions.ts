"use server";
/**
 * Server actions of the discover page: like, unlike, read and write comments as the
 * signed-in user. Each checks the web session itself (actions are plain POSTs; Next also
 * refuses them cross-origin) and calls the same domain functions as the Relay endpoints,
 * so the rules (blocks, moderation, notifications, rate of score updates) are the same.
 */
import { isDomainError } from "@/lib/errors";
import { createComment, listComments } from "@/lib/social/comments";
import { likePost, unlikePost } from "@/lib/social/likes";
import { getViewer } from "@/lib/web/viewer";
import { userRef } from "@/lib/routes/views";

export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: string };

export interface CommentJson {
  id: string;
  body: string;
  createdAt: string;
  author: { username: string; nickname: string; avatar: string };
}

const COMMENT_MAX_LENGTH = 200;

async function run<T>(work: (userId: string) => Promise<T>): Promise<ActionResult<T>> {
  const viewer = await getViewer();
  if (!viewer) return { ok: false, error: "Sign in to do that." };
  if (viewer.suspended) return { ok: false, error: "This account is suspended." };
  try {
    return { ok: true, value: await work(viewer.id) };
  } catch (error) {
    if (isDomainError(error)) return { ok: false, error: error.message };
    throw error;
  }
}

export async function setLike(code: string, liked: boolean): Promise<ActionResult<{ liked: boolean; likeCount: number }>> {
  return run((userId) => (liked ? likePost(userId, String(code)) : unlikePost(userId, String(code))));
}

export async function loadComments(code: string): Promise<ActionResult<CommentJson[]>> {
  return run(async (userId) => (await listComments(userId, String(code))).map(commentJson));
}

export async function addComment(code: string, body: string): Promise<ActionResult<CommentJson>> {
  const text = String(body ?? "").trim();
  if (!text || text.length > COMMENT_MAX_LENGTH) {
    return { ok: false, error: `A comment is 1 to ${COMMENT_MAX_LENGTH} characters.` };
  }
  return run(async (userId) => commentJson(await createComment(userId, String(code), text)));
}

function commentJson(item: Awaited<ReturnType<typeof listComments>>[number]): CommentJson {
  const ref = userRef(item.user);
  return {
    id: item.id,
    body: item.body,
    createdAt: item.createdAt.toISOString(),
    author: { username: ref.username, nickname: ref.nickname, avatar: ref.avatar },
  };
}
