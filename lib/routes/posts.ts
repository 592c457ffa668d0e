/** Handlers of the upload and post endpoints: parse, call lib/uploads and lib/posts, shape. */
import type { RouteRequest } from "../types/route-request";
import type { Principal } from "../types/principal";
import { accountOf } from "../types/principal";
import { DomainError, errorBodyOf } from "../errors";
import { decodeCursor, pageReply } from "../http/cursor";
import { booleanHeader, privacyHeader, type Privacy } from "../http/parse";
import type { Surface } from "../http/route";
import { sniffFile } from "../media/sniff";
import { expiryHeaders, isGated, type ExpirySettings } from "../posts/expiry-rules";
import { listOwnPosts, listUserPosts, type GalleryFilters } from "../posts/list";
import { updatePost, type PostChanges } from "../posts/edit";
import { deleteFile, deletePost } from "../posts/remove";
import {
  findPostByCode,
  isHidden,
  likedAmong,
  likedBy,
  notFound,
  peekLikedBy,
  peekReadablePost,
  postForChange,
  readPost,
  type PostRecord,
  type Viewer,
} from "../posts/read";
import type { Page } from "../db/paging";
import { checkUploadBurst } from "../uploads/abuse";
import { receiveFiles, type ReceivedFile } from "../uploads/multipart";
import { withTempDir } from "../files/temp";
import { appendFiles, POST_TYPES, uploadPosts, type FailedFile, type PostType } from "../uploads/upload";
import { uploaderFor, type Uploader } from "../uploads/uploader";
import { countLimitedView, countView } from "../social/views";
import { weeklyUsage } from "../usage/quota";
import { nextPriorityReset } from "../usage/priority";
import { moderator, screensFiles } from "../moderation/moderator";
import { postView } from "../presenters/post-views";

type PostView = ReturnType<typeof postView>;

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

/** One entry of a reply's `failed` list (interface.md, POST /upload). */
type FailedJson = { index: number; error: ReturnType<typeof errorBodyOf>["error"] };
const failedJson = (failed: FailedFile[]): FailedJson[] => failed.map((f) => ({ index: f.index, error: errorBodyOf(f.error).error }));

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
      const refill = nextPriorityReset().toISOString();
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

/** The request's `file` parts, within the uploader's limits. */
async function receiveUpload(request: RouteRequest, uploader: Uploader, tmpDir: string) {
  return receiveFiles(request, {
    field: "file",
    maxFileBytes: uploader.limits.uploadFileBytes,
    maxRequestBytes: uploader.limits.uploadRequestBytes,
    maxFiles: MAX_PARTS,
    tmpDir,
    hash: screensFiles(moderator()),
  });
}

/** Every file failed: one file → its own error; several → upload_failed with the list. */
function allFailed(failed: FailedFile[], fileCount: number): never {
  if (fileCount === 1 && failed.length === 1) throw failed[0].error;
  throw new DomainError("upload_failed", "Every file of the upload failed.", undefined, { failed: failedJson(failed) });
}

/** The options of POST /upload, from its headers (or a tus upload's metadata, read as headers). */
export interface UploadRequestOptions {
  privacy: Privacy;
  keepMetadata: boolean;
  priority: boolean;
  postType: PostType;
  /** `expires-at` and `max-views` (docs/expiry.md). */
  expiry: ExpirySettings;
}

/** Parses the upload headers; each bad value is 400 invalid_request naming the header. */
export function uploadRequestOptions(principal: Principal, headers: Headers): UploadRequestOptions {
  return {
    // A team key's posts are always private: its post-privacy header is ignored, even when invalid.
    privacy: principal.kind === "team" ? "private" : privacyHeader(headers),
    keepMetadata: booleanHeader(headers, "include-metadata", false),
    priority: booleanHeader(headers, "priority", true),
    postType: postTypeHeader(headers),
    expiry: expiryHeaders(headers),
  };
}

/**
 * Received files → posts and the reply of POST /upload. Shared by POST /upload and the
 * last PATCH of a resumable upload (docs/resumable-uploads.md): one pipeline, one set of
 * rules and errors.
 */
export async function publishUpload(
  principal: Principal,
  surface: Surface,
  files: ReceivedFile[],
  options: UploadRequestOptions,
  tmpDir: string,
): Promise<{ url: string; post: PostView; failed?: FailedJson[] } | { posts: PostView[]; failed?: FailedJson[] }> {
  const uploader = uploaderFor(principal);
  await checkPriorityMinutes(files, options.priority, uploader, surface);
  const outcome = await uploadPosts(uploader, files, {
    privacy: options.privacy,
    keepMetadata: options.keepMetadata,
    postType: options.postType,
    expiry: options.expiry,
    tmpDir,
    priority: onPriority(options.priority, uploader),
  });
  if (!outcome.posts.length) allFailed(outcome.failed, files.length);
  const posts = outcome.posts.map((post) => postView(post, { owner: true, liked: false, surface }));
  const failed = outcome.failed.length ? { failed: failedJson(outcome.failed) } : {};
  if (posts.length === 1) return { url: posts[0].files[0].url, post: posts[0], ...failed };
  return { posts, ...failed };
}

/** Received files → more files of the post `code` and the reply of POST /posts/{code}/files (shared like publishUpload). */
export async function publishAppend(
  principal: Principal,
  surface: Surface,
  code: string,
  files: ReceivedFile[],
  options: Pick<UploadRequestOptions, "keepMetadata" | "priority">,
  tmpDir: string,
): Promise<{ post: PostView; failed?: FailedJson[] }> {
  const post = await postForChange(code, viewerOf(principal, surface));
  const uploader = uploaderFor(principal);
  await checkPriorityMinutes(files, options.priority, uploader, surface);
  const { failed } = await appendFiles({ postId: post.id }, uploader, files, {
    keepMetadata: options.keepMetadata,
    tmpDir,
    priority: onPriority(options.priority, uploader),
  });
  if (failed.length === files.length) allFailed(failed, files.length);
  const fresh = await findPostByCode(code);
  if (!fresh) throw new DomainError("not_found", "No such post.");
  return { post: postView(fresh, { owner: true, liked: false, surface }), ...(failed.length ? { failed: failedJson(failed) } : {}) };
}

export async function handleUpload(principal: Principal, request: RouteRequest, surface: Surface) {
  await checkUploadBurst(principal);
  const options = uploadRequestOptions(principal, request.headers);
  const uploader = uploaderFor(principal);
  return withTempDir(async (tmpDir) => publishUpload(principal, surface, await receiveUpload(request, uploader, tmpDir), options, tmpDir));
}

export async function handleAddFiles(principal: Principal, request: RouteRequest, surface: Surface, code: string) {
  // Ownership first: a stranger's request is refused before its body is read.
  await postForChange(code, viewerOf(principal, surface));
  const keepMetadata = booleanHeader(request.headers, "include-metadata", false);
  const priority = booleanHeader(request.headers, "priority", true);
  const uploader = uploaderFor(principal);
  return withTempDir(async (tmpDir) =>
    publishAppend(principal, surface, code, await receiveUpload(request, uploader, tmpDir), { keepMetadata, priority }, tmpDir),
  );
}

/**
 * handleGetPost from the read caches, when everything it needs is cached. Not on Relay,
 * where a read also counts a view (a write).
 */
export function getPostFromCache(principal: Principal, surface: Surface, code: string) {
  if (surface !== "api") return undefined;
  const viewer = viewerOf(principal, surface);
  const visible = peekReadablePost(code, viewer);
  // A view-limited or password-protected post someone else reads is never a plain cache hit.
  if (!visible || (!visible.owner && isGated(visible.post))) return undefined;
  const liked = peekLikedBy(visible.post.id, viewer.userId);
  if (liked === undefined) return undefined;
  const { post, owner } = visible;
  // Signed links carry an expiry taken from the clock: such a view is built anew each time.
  if (isHidden(post) || isGated(post)) return { post: postView(post, { owner, liked, surface }) };
  return cachedPostView(post, owner, liked);
}

/**
 * The reply of a cached read per post record and viewer kind (docs/performance.md,
 * 2026-11-26). A record in the posts cache is replaced, never changed, when the post
 * changes (lib/posts/read.ts), so keying by the record follows every change at once; the
 * viewer's like and ownership are part of the key. Frozen: the dispatcher keeps the JSON
 * text of frozen replies (lib/http/dispatch.ts, answerFromCache).
 */
type PostReply = Readonly<{ post: ReturnType<typeof postView> }>;
const cachedViews = new WeakMap<PostRecord, (PostReply | undefined)[]>();
function cachedPostView(post: PostRecord, owner: boolean, liked: boolean): PostReply {
  let views = cachedViews.get(post);
  if (!views) cachedViews.set(post, (views = []));
  const slot = (owner ? 2 : 0) + (liked ? 1 : 0);
  return (views[slot] ??= Object.freeze({ post: postView(post, { owner, liked, surface: "api" }) }));
}

/** On Relay a read counts a view for the client address (lib/social/views.ts). */
export async function handleGetPost(principal: Principal, surface: Surface, code: string, ip: string) {
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

export async function handleUpdatePost(principal: Principal, surface: Surface, code: string, body: UpdatePostBody) {
  const viewer = viewerOf(principal, surface);
  const { expires_at, max_views, ...rest } = body;
  await updatePost(code, viewer, { ...rest, expiresAt: expires_at, maxViews: max_views });
  const post = await findPostByCode(code);
  if (!post) throw new DomainError("not_found", "No such post.");
  return { post: postView(post, { owner: true, liked: await likedBy(post.id, viewer.userId), surface }) };
}

export async function handleDeletePost(principal: Principal, surface: Surface, code: string) {
  await deletePost(code, viewerOf(principal, surface));
  return { code, deleted: true as const };
}

export async function handleDeleteFile(principal: Principal, surface: Surface, code: string, name: string) {
  await deleteFile(code, name, viewerOf(principal, surface));
  return { name, deleted: true as const };
}

async function postsPage(
  endpoint: string,
  page: Page<PostRecord>,
  filters: Record<string, unknown>,
  viewer: Viewer,
  surface: Surface,
  owner: boolean,
) {
  const liked = await likedAmong(
    viewer.userId,
    page.items.map((p) => p.id),
  );
  return pageReply("posts", endpoint, filters, page, (p) => postView(p, { owner, liked: liked.has(p.id), surface }));
}

export async function handleListPosts(principal: Principal, surface: Surface, query: { limit: number; cursor?: string } & GalleryFilters) {
  const user = accountOf(principal);
  const filters = { search: query.search ?? null, privacy: query.privacy ?? null, tab: query.tab ?? null };
  const after = query.cursor ? decodeCursor("listPosts", query.cursor, filters) : undefined;
  const page = await listOwnPosts(user.id, query, query.limit, after);
  return postsPage("listPosts", page, filters, viewerOf(principal, surface), surface, true);
}

export async function handleUserPosts(principal: Principal, surface: Surface, id: string, query: { limit: number; cursor?: string }) {
  const ref = id === "@me" ? accountOf(principal).id : id;
  const filters = { user: ref };
  const after = query.cursor ? decodeCursor("listUserPosts", query.cursor, filters) : undefined;
  const page = await listUserPosts(ref, query.limit, after);
  const viewer = viewerOf(principal, surface);
  return postsPage("listUserPosts", page, filters, viewer, surface, page.items[0]?.userId === viewer.userId);
}
