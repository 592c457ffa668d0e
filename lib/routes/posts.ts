/** Handlers of the upload and post endpoints: parse, call lib/uploads and lib/posts, shape. */
import type { RouteRequest } from "../types/route-request";
import type { PersonalPrincipal, Principal } from "../types/principal";
import { decodeCursor, decodeSortedCursor, pageReply, sortedPageReply } from "../http/cursor";
import type { Surface } from "../http/route";
import { isGated } from "../posts/expiry-rules";
import {
  DEFAULT_GALLERY_SORT,
  gallerySortAccepts,
  listOwnPostsSorted,
  listUserPosts,
  type GalleryFilters,
  type GallerySort,
} from "../posts/list";
import { editPost, type PostChanges } from "../posts/edit";
import { deleteFile, deletePost } from "../posts/remove";
import { isHidden, likedAmong, postForChange, type PostRecord, type Viewer } from "../posts/read";
import { openPost, peekOpenPost, refusalError } from "../posts/open";
import { checkUploadBurst } from "../uploads/abuse";
import { receiveFiles, type ReceivedFile } from "../uploads/multipart";
import { withTempDir } from "../files/temp";
import { publishAppend, publishUpload, postPrivacy } from "../uploads/publish";
import type { FailedFile, UploadOutcome } from "../uploads/upload";
import { uploaderFor, type Uploader } from "../uploads/uploader";
import { moderator, screensFiles } from "../moderation/moderator";
import { postView } from "../presenters/post-views";
import { failedFilesView, type FailedFileView } from "../presenters/failed-files";
import { addToFolder, folderForUpload } from "../folders/folders";
import { appendRequestOptions, folderHeader, uploadRequestOptions } from "./upload-headers";

type PostView = ReturnType<typeof postView>;

/** Parts past this many in one request are refused without being written. */
const MAX_PARTS = 50;

/** Who is asking, and whether a private post's access list counts (Relay only). */
export function viewerOf(principal: Principal | null, surface: Surface): Viewer {
  const accessList = surface === "relay";
  if (principal?.kind === "team") return { userId: null, teamId: principal.team.id, accessList };
  return { userId: principal?.user.id ?? null, teamId: null, accessList };
}

/** The request's `file` parts, within the uploader's limits. */
async function receiveUpload(request: RouteRequest, uploader: Uploader, tmpDir: string): Promise<ReceivedFile[]> {
  return receiveFiles(request, {
    field: "file",
    maxFileBytes: uploader.limits.uploadFileBytes,
    maxRequestBytes: uploader.limits.uploadRequestBytes,
    maxFiles: MAX_PARTS,
    tmpDir,
    hash: screensFiles(moderator()),
  });
}

/** The `failed` list of a reply, present only when some file failed (docs/uploads.md, "How files map to posts"). */
const failedPart = (failed: readonly FailedFile[]): { failed?: FailedFileView[] } =>
  failed.length ? { failed: failedFilesView(failed) } : {};

export type UploadReply = { url: string; post: PostView; failed?: FailedFileView[] } | { posts: PostView[]; failed?: FailedFileView[] };

/** The reply of POST /upload: one post with its direct URL, or the list of posts. */
export function uploadReply(outcome: UploadOutcome, surface: Surface): UploadReply {
  const posts = outcome.posts.map((post) => postView(post, { owner: true, liked: false, surface }));
  if (posts.length === 1) return { url: posts[0].files[0].url, post: posts[0], ...failedPart(outcome.failed) };
  return { posts, ...failedPart(outcome.failed) };
}

/** The reply of POST /posts/{code}/files: the post with every file. */
export function appendReply(
  outcome: { post: PostRecord; failed: FailedFile[] },
  surface: Surface,
): { post: PostView; failed?: FailedFileView[] } {
  return { post: postView(outcome.post, { owner: true, liked: false, surface }), ...failedPart(outcome.failed) };
}

/**
 * The `folder` header's folder, found or created before the body is read, so a bad name
 * or one folder too many is refused before any byte is stored. Folders are a person's: a
 * team key's header is ignored, as its post-privacy is (docs/folders.md).
 */
export async function uploadFolder(principal: Principal, ref: string | null): Promise<string | null> {
  if (ref === null || principal.kind === "team") return null;
  return folderForUpload(principal.user.id, ref);
}

export async function handleUpload(principal: Principal, request: RouteRequest, surface: Surface): Promise<UploadReply> {
  await checkUploadBurst(principal);
  const uploader = uploaderFor(principal);
  const choices = uploadRequestOptions(request.headers, (asked) => postPrivacy(uploader, asked));
  const folderId = await uploadFolder(principal, folderHeader(request.headers));
  return withTempDir(async (tmpDir) => {
    const outcome = await publishUpload(uploader, surface, await receiveUpload(request, uploader, tmpDir), choices, tmpDir);
    if (folderId)
      await addToFolder(
        folderId,
        outcome.posts.map((p) => p.id),
      );
    return uploadReply(outcome, surface);
  });
}

export async function handleAddFiles(principal: Principal, request: RouteRequest, surface: Surface, code: string) {
  const target = { code, viewer: viewerOf(principal, surface) };
  // Ownership first: a stranger's request is refused before its body is read.
  await postForChange(code, target.viewer);
  const choices = appendRequestOptions(request.headers);
  const uploader = uploaderFor(principal);
  return withTempDir(async (tmpDir) =>
    appendReply(await publishAppend(uploader, surface, target, await receiveUpload(request, uploader, tmpDir), choices, tmpDir), surface),
  );
}

/**
 * handleGetPost from the read caches, when everything it needs is cached. Not on Relay,
 * where a read also counts a view (a write).
 */
export function getPostFromCache(principal: Principal, surface: Surface, code: string) {
  if (surface !== "api") return undefined;
  const opened = peekOpenPost(code, viewerOf(principal, surface));
  if (!opened) return undefined;
  const { post, owner, liked } = opened;
  // Signed links carry an expiry taken from the clock: such a view is built anew each time.
  if (isHidden(post) || isGated(post)) return { post: postView(post, { owner, liked, surface }) };
  return cachedPostView(post, owner, liked);
}

/**
 * The reply of a cached read per post record and viewer kind (docs/performance.md,
 * "The cached post reply kept, cheaper cache hits and key hashes"). A record in the posts
 * cache is replaced, never changed, when the post changes (lib/posts/read.ts), so keying by
 * the record follows every change at once; the viewer's like and ownership are part of the
 * key. Frozen: the dispatcher keeps the JSON
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

/** GET /posts/{code}: openPost (lib/posts/open.ts) decides; on Relay the read counts a view for the client address. */
export async function handleGetPost(principal: Principal, surface: Surface, code: string, ip: string) {
  const viewer = viewerOf(principal, surface);
  const opened = await openPost(code, { viewer, ...(surface === "relay" ? { viewFrom: ip } : {}) });
  if (opened.kind !== "post") throw refusalError(opened);
  return { post: postView(opened.post, { owner: opened.owner, liked: opened.liked, surface }) };
}

/** The PATCH body as parsed by lib/routes/params.ts (updatePostBody, updatePostBodyRelay). */
export interface UpdatePostBody extends Omit<PostChanges, "expiresAt" | "maxViews"> {
  expires_at?: Date | null;
  max_views?: number | null;
}

export async function handleUpdatePost(principal: Principal, surface: Surface, code: string, body: UpdatePostBody) {
  const viewer = viewerOf(principal, surface);
  const { expires_at, max_views, ...rest } = body;
  const { post, liked } = await editPost(code, viewer, { ...rest, expiresAt: expires_at, maxViews: max_views });
  return { post: postView(post, { owner: true, liked, surface }) };
}

export async function handleDeletePost(principal: Principal, surface: Surface, code: string) {
  await deletePost(code, viewerOf(principal, surface));
  return { code, deleted: true as const };
}

export async function handleDeleteFile(principal: Principal, surface: Surface, code: string, name: string) {
  await deleteFile(code, name, viewerOf(principal, surface));
  return { name, deleted: true as const };
}

/** The view of each listed post, with the viewer's likes read once for the page. */
async function postViewer(items: readonly PostRecord[], viewer: Viewer, surface: Surface, owner: boolean) {
  const liked = await likedAmong(
    viewer.userId,
    items.map((p) => p.id),
  );
  return (p: PostRecord) => postView(p, { owner, liked: liked.has(p.id), surface });
}

export async function handleListPosts(
  principal: PersonalPrincipal,
  surface: Surface,
  query: { limit: number; cursor?: string; sort?: GallerySort } & GalleryFilters,
) {
  const user = principal.user;
  const filters = {
    search: query.search ?? null,
    privacy: query.privacy ?? null,
    tab: query.tab ?? null,
    ...(query.folder ? { folder: query.folder } : {}),
  };
  // The default order (also asked for by name) pages with today's cursors; any other order's
  // cursors name it, so one from another order is a 400 (docs/gallery-sort.md).
  const sort = query.sort ?? DEFAULT_GALLERY_SORT;
  const named = sort === DEFAULT_GALLERY_SORT ? null : sort;
  const after = query.cursor ? decodeSortedCursor("listPosts", query.cursor, filters, named, gallerySortAccepts(sort)) : undefined;
  const page = await listOwnPostsSorted(user.id, query, sort, query.limit, after);
  const view = await postViewer(page.items, viewerOf(principal, surface), surface, true);
  return sortedPageReply("posts", "listPosts", named, filters, page, view);
}

export async function handleUserPosts(
  principal: PersonalPrincipal,
  surface: Surface,
  id: string,
  query: { limit: number; cursor?: string },
) {
  const ref = id === "@me" ? principal.user.id : id;
  const filters = { user: ref };
  const after = query.cursor ? decodeCursor("listUserPosts", query.cursor, filters) : undefined;
  const page = await listUserPosts(ref, query.limit, after);
  const viewer = viewerOf(principal, surface);
  const view = await postViewer(page.items, viewer, surface, page.items[0]?.userId === viewer.userId);
  return pageReply("posts", "listUserPosts", filters, page, view);
}
