/** Handlers of the upload and post endpoints: parse, call lib/uploads and lib/posts, shape. */
import type { Principal } from "../auth/principal";
import { accountOf } from "../auth/principal";
import { DomainError } from "../errors";
import { decodeCursor, encodeCursor } from "../http/cursor";
import { booleanHeader, privacyHeader, type Privacy } from "../http/parse";
import type { Surface } from "../http/route";
import { sniffFile } from "../media/sniff";
import { expiryHeaders, isGated } from "../posts/expiry-rules";
import { listOwnPosts, listUserPosts, type GalleryFilters } from "../posts/list";
import { updatePost, type PostChanges } from "../posts/edit";
import { deleteFile, deletePost } from "../posts/remove";
import { findPostByCode, likedBy, notFound, peekLikedBy, peekReadablePost, postForChange, readPost, type PostRecord, type Viewer } from "../posts/read";
import { db } from "../db/client";
import type { Page } from "../db/paging";
import { checkUploadBurst } from "../uploads/abuse";
import { receiveFiles, type ReceivedFile } from "../uploads/multipart";
import { withTempDir } from "../uploads/temp";
import { appendFiles, POST_TYPES, uploadPosts, type FailedFile, type PostType } from "../uploads/upload";
import { uploaderFor, type Uploader } from "../uploads/uploader";
import { countLimitedView, countView } from "../social/views";
import { weeklyUsage } from "../usage/quota";
import { moderator, screensFiles } from "../moderation/moderator";
import { postView } from "./post-views";

/** Parts past this many in one request are refused without being written. */
const MAX_PARTS = 50;

/** Who is asking, and whether a private post's access list counts (Relay only). */
export function viewerOf(principal: Principal | null, surface: Surface): Viewer {
  const accessList = surface === "relay";
  if (principal?.kind === "team") return { userId: null, teamId: principal.team.id, accessList };
  return { userId: principal?.user.id ?? null, teamId: null, accessList };
}

function postTypeHeader(headers: Headers): PostType {
  const raw = headers.get("post-type");
  if (raw === null || raw.trim() === "") return "album";
  const v = raw.trim().toLowerCase();
  if ((POST_TYPES as readonly string[]).includes(v)) return v as PostType;
  throw new DomainError("invalid_request", `Header post-type must be ${POST_TYPES.join(" or ")}.`);
}

const errorBody = (e: DomainError) => ({ ...e.context, type: e.type, message: e.message });
const failedJson = (failed: FailedFile[]) => failed.map((f) => ({ index: f.index, error: errorBody(f.error) }));

/**
 * Priority streaming spends priority minutes. With none left, a video upload that asks
 * for it is refused with 403 quota_exceeded on Relay; the API falls back to standard
 * delivery (docs/uploads.md). The error's `quota`, `used` and `resets_at` are what
 * interface.md defines them as, the weekly quota's; the monthly refill of the minutes is
 * in the message.
 */
async function checkPriorityMinutes(files: ReceivedFile[], priority: boolean, uploader: Uploader, surface: Surface) {
  if (!priority || surface !== "relay") return;
  for (const f of files) {
    if (f.path && (await sniffFile(f.path))?.kind === "video") {
      if ((await uploader.priorityMinutesLeft()) > 0) return;
      const week = await weeklyUsage(uploader.account.subject, uploader.account.quota);
      const refill = nextMonth().toISOString();
      throw new DomainError(
        "quota_exceeded",
        `No priority minutes left until ${refill}; upload with \`priority: false\` for standard delivery.`,
        403,
        { quota: week.quota, used: week.used, resets_at: week.resetsAt.toISOString() },
      );
    }
  }
}
/**
 * Asked for and minutes left; on the API, none left falls back to standard delivery
 * (docs/priority-delivery.md). Asked only when a video was stored.
 */
const onPriority = (asked: boolean, uploader: Uploader) => async (): Promise<boolean> =>
  asked && (await uploader.priorityMinutesLeft()) > 0;
const nextMonth = (now = new Date()) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));

/** The request's `file` parts, within the uploader's limits, with the priority-minutes check. */
async function receiveUpload(request: Request, uploader: Uploader, tmpDir: string, priority: boolean, surface: Surface) {
  const files = await receiveFiles(request, {
    field: "file",
    maxFileBytes: uploader.limits.uploadFileBytes,
    maxRequestBytes: uploader.limits.uploadRequestBytes,
    maxFiles: MAX_PARTS,
    tmpDir,
    hash: screensFiles(moderator()),
  });
  await checkPriorityMinutes(files, priority, uploader, surface);
  return files;
}

/** Every file failed: one file → its own error; several → upload_failed with the list. */
function allFailed(failed: FailedFile[], fileCount: number): never {
  if (fileCount === 1 && failed.length === 1) throw failed[0].error;
  throw new DomainError("upload_failed", "Every file of the upload failed.", undefined, { failed: failedJson(failed) });
}

export async function handleUpload(principal: Principal, request: Request, surface: Surface): Promise<object> {
  await checkUploadBurst(principal);
  const headers = request.headers;
  // A team key's posts are always private: its post-privacy header is ignored, even when invalid.
  const privacy: Privacy = principal.kind === "team" ? "private" : privacyHeader(headers);
  const keepMetadata = booleanHeader(headers, "include-metadata", false);
  const priority = booleanHeader(headers, "priority", true);
  const postType = postTypeHeader(headers);
  const expiry = expiryHeaders(headers);
  const uploader = uploaderFor(principal);
  return withTempDir(async (tmpDir) => {
    const files = await receiveUpload(request, uploader, tmpDir, priority, surface);
    const outcome = await uploadPosts(uploader, files, { privacy, expiry, keepMetadata, postType, tmpDir, priority: onPriority(priority, uploader) });
    if (!outcome.posts.length) allFailed(outcome.failed, files.length);
    const posts = outcome.posts.map((post) => postView(post, { owner: true, liked: false, surface }));
    const failed = outcome.failed.length ? { failed: failedJson(outcome.failed) } : {};
    if (posts.length === 1) return { url: posts[0].files[0].url, post: posts[0], ...failed };
    return { posts, ...failed };
  });
}

export async function handleAddFiles(principal: Principal, request: Request, surface: Surface, code: string): Promise<object> {
  const viewer = viewerOf(principal, surface);
  const post = await postForChange(code, viewer);
  const keepMetadata = booleanHeader(request.headers, "include-metadata", false);
  const priority = booleanHeader(request.headers, "priority", true);
  const uploader = uploaderFor(principal);
  return withTempDir(async (tmpDir) => {
    const files = await receiveUpload(request, uploader, tmpDir, priority, surface);
    const { failed } = await appendFiles({ postId: post.id }, uploader, files, { keepMetadata, tmpDir, priority: onPriority(priority, uploader) });
    if (failed.length === files.length) allFailed(failed, files.length);
    const fresh = await findPostByCode(code);
    if (!fresh) throw new DomainError("not_found", "No such post.");
    return { post: postView(fresh, { owner: true, liked: false, surface }), ...(failed.length ? { failed: failedJson(failed) } : {}) };
  });
}

/**
 * handleGetPost from the read caches, when everything it needs is cached. Not on Relay,
 * where a read also counts a view (a write).
 */
export function getPostFromCache(principal: Principal, surface: Surface, code: string): object | undefined {
  if (surface !== "api") return undefined;
  const viewer = viewerOf(principal, surface);
  const visible = peekReadablePost(code, viewer);
  // A view-limited or password-protected post someone else reads is never a plain cache hit.
  if (!visible || (!visible.owner && isGated(visible.post))) return undefined;
  const liked = peekLikedBy(visible.post.id, viewer.userId);
  if (liked === undefined) return undefined;
  return { post: postView(visible.post, { owner: visible.owner, liked, surface }) };
}

/** On Relay a read counts a view for the client address (lib/social/views.ts). */
export async function handleGetPost(principal: Principal, surface: Surface, code: string, ip: string): Promise<object> {
  const viewer = viewerOf(principal, surface);
  const { post, owner } = await readPost(code, viewer);
  // A share-page password is a web feature: the API and Relay do not know it, so to others
  // the post is as if private (docs/share-passwords.md).
  if (!owner && post.passwordHash !== null) throw notFound();
  let shown: PostRecord = post;
  if (!owner && post.maxViews !== null) {
    // Every read by someone else spends one view, on both surfaces; none left: 404 (docs/expiry.md).
    const state = await countLimitedView(post.id);
    if (!state) throw notFound();
    shown = { ...post, ...state };
  } else if (surface === "relay" && (await countView(post, ip))) {
    shown = { ...post, viewCount: post.viewCount + 1 };
  }
  return { post: postView(shown, { owner, liked: await likedBy(post.id, viewer.userId), surface }) };
}

/** The PATCH body as parsed by lib/routes/params.ts (updatePostBody, updatePostBodyRelay). */
export interface UpdatePostBody extends Omit<PostChanges, "expiresAt" | "maxViews"> {
  expires_at?: Date | null;
  max_views?: number | null;
}

export async function handleUpdatePost(principal: Principal, surface: Surface, code: string, body: UpdatePostBody): Promise<object> {
  const viewer = viewerOf(principal, surface);
  const { expires_at, max_views, ...rest } = body;
  await updatePost(code, viewer, { ...rest, expiresAt: expires_at, maxViews: max_views });
  const post = await findPostByCode(code);
  if (!post) throw new DomainError("not_found", "No such post.");
  return { post: postView(post, { owner: true, liked: await likedBy(post.id, viewer.userId), surface }) };
}

export async function handleDeletePost(principal: Principal, surface: Surface, code: string): Promise<object> {
  await deletePost(code, viewerOf(principal, surface));
  return { code, deleted: true };
}

export async function handleDeleteFile(principal: Principal, surface: Surface, code: string, name: string): Promise<object> {
  await deleteFile(code, name, viewerOf(principal, surface));
  return { name, deleted: true };
}

async function pageReply(endpoint: string, page: Page<PostRecord>, filters: Record<string, unknown>, viewer: Viewer, surface: Surface, owner: boolean) {
  const liked = viewer.userId
    ? new Set(
        (
          await db().like.findMany({
            where: { userId: viewer.userId, postId: { in: page.items.map((p) => p.id) } },
            select: { postId: true },
          })
        ).map((l) => l.postId),
      )
    : new Set<string>();
  return {
    posts: page.items.map((p) => postView(p, { owner, liked: liked.has(p.id), surface })),
    has_more: page.hasMore,
    next_cursor: page.next ? encodeCursor(endpoint, page.next, filters) : null,
  };
}

export async function handleListPosts(
  principal: Principal,
  surface: Surface,
  query: { limit: number; cursor?: string } & GalleryFilters,
): Promise<object> {
  const user = accountOf(principal);
  const filters = { search: query.search ?? null, privacy: query.privacy ?? null, tab: query.tab ?? null };
  const after = query.cursor ? decodeCursor("listPosts", query.cursor, filters) : undefined;
  const page = await listOwnPosts(user.id, query, query.limit, after);
  return pageReply("listPosts", page, filters, viewerOf(principal, surface), surface, true);
}

export async function handleUserPosts(principal: Principal, surface: Surface, id: string, query: { limit: number; cursor?: string }) {
  const ref = id === "@me" ? accountOf(principal).id : id;
  const filters = { user: ref };
  const after = query.cursor ? decodeCursor("listUserPosts", query.cursor, filters) : undefined;
  const page = await listUserPosts(ref, query.limit, after);
  const viewer = viewerOf(principal, surface);
  return pageReply("listUserPosts", page, filters, viewer, surface, page.items[0]?.userId === viewer.userId);
}

