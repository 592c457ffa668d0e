"use server";
/**
 * Server actions of the public pages, on the same rate-limit bucket and domain function as the
 * Relay endpoint, so a like on the web and over Relay share one limit and one set of rules.
 */
import { headers } from "next/headers";
import { z } from "zod";
import { DomainError } from "@/lib/errors";
import { counterStore } from "@/lib/ratelimit";
import { hitBucket, userSubject, type BucketName } from "@/lib/ratelimit/buckets";
import { requestClientIp } from "@/lib/http/client-ip";
import { reportPost } from "@/lib/reports/submit";
import { userRef } from "@/lib/presenters/users";
import { createComment, listComments } from "@/lib/social/comments";
import { followUser, unfollowUser } from "@/lib/social/follows";
import { likePost, unlikePost } from "@/lib/social/likes";
import { attempt, type ActionResult } from "./dashboard/result";
import { requireShareUnlocked } from "./share-access";
import { getViewer } from "./viewer";

export type { ActionResult };

export interface CommentJson {
  id: string;
  body: string;
  createdAt: string;
  author: { username: string; nickname: string; avatar: string };
}

/** Comments and report reasons are at most 200 characters (docs/relay-social.md, "Comments"; docs/reports.md). */
const TEXT_MAX_LENGTH = 200;
const code = z.string().min(1).max(64);

/** After one hit on `bucket` (null: no limit). */
async function actor(bucket: BucketName | null): Promise<string> {
  const viewer = await getViewer();
  if (!viewer) throw new DomainError("unauthorized", "Sign in to do that.");
  if (viewer.suspended) throw new DomainError("suspended", "This account is suspended.");
  if (bucket) {
    const result = await hitBucket(counterStore(), bucket, userSubject(viewer.id));
    if (!result.allowed) throw new DomainError("rate_limited", `Too many requests; try again in ${result.retryAfter} s.`);
  }
  return viewer.id;
}

function parse<T>(schema: z.ZodType<T>, value: unknown, message: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new DomainError("invalid_request", message);
  return result.data;
}

export async function setLike(postCode: string, liked: boolean): Promise<ActionResult<{ liked: boolean; likeCount: number }>> {
  return attempt(async () => {
    const target = parse(code, postCode, "No such post.");
    const userId = await actor("likes");
    await requireShareUnlocked(target, userId);
    return liked ? likePost(userId, target) : unlikePost(userId, target);
  });
}

export async function loadComments(postCode: string): Promise<ActionResult<CommentJson[]>> {
  return attempt(async () => {
    const target = parse(code, postCode, "No such post.");
    const userId = await actor(null);
    await requireShareUnlocked(target, userId);
    return (await listComments(userId, target)).map(commentJson);
  });
}

export async function addComment(postCode: string, body: string): Promise<ActionResult<CommentJson>> {
  return attempt(async () => {
    const target = parse(code, postCode, "No such post.");
    const text = parse(z.string().trim().min(1).max(TEXT_MAX_LENGTH), body, `A comment is 1 to ${TEXT_MAX_LENGTH} characters.`);
    const userId = await actor("comments_write");
    await requireShareUnlocked(target, userId);
    return commentJson(await createComment(userId, target, text));
  });
}

export async function reportPostAction(postCode: string, reason: string): Promise<ActionResult<{ reported: true }>> {
  return attempt(async () => {
    const target = parse(code, postCode, "No such post.");
    const text = parse(z.string().trim().max(TEXT_MAX_LENGTH), reason ?? "", `A reason is at most ${TEXT_MAX_LENGTH} characters.`);
    const reporterId = await actor("reports");
    await requireShareUnlocked(target, reporterId);
    const ip = requestClientIp(await headers());
    await reportPost(target, { reporterId, reason: text || null, ip });
    return { reported: true as const };
  });
}

export async function setFollow(username: string, follow: boolean): Promise<ActionResult<{ following: boolean; followerCount: number }>> {
  return attempt(async () => {
    const target = parse(z.string().min(1).max(64), username, "No such user.");
    const userId = await actor(follow ? "follow" : "unfollow");
    return follow ? followUser(userId, target) : unfollowUser(userId, target);
  });
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
