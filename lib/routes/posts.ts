/** Handlers of the posts area: parse what the dispatcher left, call lib/uploads or lib/posts, answer through lib/presenters/posts.ts. */
import { z } from "zod";
import type { RouteRequest } from "@/lib/types/route-request";
import type { Principal } from "@/lib/types/principal";
import { decodeSortedCursor, sortedPageReply } from "@/lib/http/cursor";
import { LIMITS, limitedText, pagingQuery, privacyField } from "@/lib/http/parse";
import type { CacheContext, KeyKind, RouteContext, Surface } from "@/lib/http/route";
import { BATCH_ACTIONS, BATCH_MAX_ITEMS, runBatch, type BatchAction } from "@/lib/posts/batch";
import { isGated, MAX_VIEWS_LIMIT, parseExpiry } from "@/lib/posts/expiry-rules";
import { DEFAULT_GALLERY_SORT, GALLERY_SORTS, GALLERY_TABS, gallerySortAccepts, listOwnPostsSorted } from "@/lib/posts/list";
import { editPost, type PostChanges } from "@/lib/posts/edit";
import { deletePost } from "@/lib/posts/remove";
import { isHidden, likedAmong, postForChange, readPostAddress, type PostRecord, type Viewer } from "@/lib/posts/read";
import { openPost, peekOpenPost, refusalError } from "@/lib/posts/open";
import { checkUploadBurst } from "@/lib/uploads/abuse";
import { receiveFiles, type ReceivedFile } from "@/lib/uploads/multipart";
import { withTempDir } from "@/lib/files/temp";
import { fetchUrlEntries, urlFetchOptions } from "@/lib/uploads/url-fetch";
import { publishAppend, publishUpload, postPrivacy } from "@/lib/uploads/publish";
import { uploaderFor, type Uploader } from "@/lib/uploads/uploader";
import { moderator, screensFiles } from "@/lib/moderation/moderator";
import { chooseUploadDomain, DOMAIN_HEADER } from "@/lib/domains/domains";
import { appendReply, batchView, cachedPostReply, postView, shareUrl, uploadReply } from "@/lib/presenters/posts";
import { addPostToFolder, addToFolder, folderForUpload, folderNotFound, getFolder, removePostFromFolder } from "@/lib/folders/folders";
import { POST_TAGS_MAX } from "@/lib/posts/tag-ids";
import { addTagToPost, getTag, removeTagFromPost, tagNotFound } from "@/lib/tags/tags";
import { drawQr } from "@/lib/links/qr";
import { setSharePassword, SHARE_PASSWORD_MAX } from "@/lib/posts/share-password";
import { type codeParam, type qrQuery, qrResponse } from "./params";
import { appendRequestOptions, folderHeader, uploadRequestOptions } from "./upload-headers";

export const postsQuery = pagingQuery.extend({
  search: z.string().max(100).optional(),
  privacy: privacyField.optional(),
  tab: z.enum(GALLERY_TABS, { error: `tab must be one of ${GALLERY_TABS.join(", ")}.` }).optional(),
  folder: z.string().max(64).optional().describe("Only posts in this folder (its id; docs/folders.md)"),
  tag: z.string().max(64).optional().describe("Only posts with this tag of the caller's (its id; docs/tags.md)"),
  favorite: z
    .enum(["true", "false"], { error: "favorite must be true or false." })
    .optional()
    .describe("true: only the posts marked favourite; false: only the others (docs/tags.md)"),
  sort: z
    .enum(GALLERY_SORTS, { error: `sort must be one of ${GALLERY_SORTS.join(", ")}.` })
    .optional()
    .describe(
      "Order (docs/gallery-sort.md): date (newest first, the default), size (largest first), views (most first) or name " +
        "(title, else the first file's name, A to Z); a leading - reverses it. Ties are broken by post id. " +
        "The cursor is bound to the order: a cursor from another order is 400 invalid_request.",
    ),
});

const nullableText = (field: string, max: number) => limitedText(field, max).nullable().optional();

/** `expires_at`: an ISO 8601 time with a zone or a duration from now (`1h`, `7d`); null clears it. */
const expiresAtField = z
  .string({ error: "expires_at must be a string or null." })
  .nullable()
  .optional()
  .transform((v, ctx) => {
    if (v === null || v === undefined) return v;
    try {
      return parseExpiry(v, "expires_at");
    } catch (error) {
      ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : "expires_at is not valid." });
      return z.NEVER;
    }
  })
  .meta({ description: "ISO 8601 time with a zone, or a duration from now (30m, 1h, 7d, 2w); null removes the expiry." });

export const updatePostBody = z.object({
  title: nullableText("title", LIMITS.title),
  description: nullableText("description", LIMITS.description),
  privacy: privacyField.optional(),
  expires_at: expiresAtField,
  max_views: z
    .number({ error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .int({ error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .min(1, { error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .max(MAX_VIEWS_LIMIT, { error: `max_views must be an integer from 1 to ${MAX_VIEWS_LIMIT} or null.` })
    .nullable()
    .optional()
    .meta({ description: "Views after which the post expires (counted from now on the post's total); null removes the limit." }),
  favorite: z.boolean({ error: "favorite must be true or false." }).optional().describe("Mark the post as a favourite (docs/tags.md)"),
  tags: z
    .array(z.string({ error: "tags must hold tag ids." }).max(64, "tags must hold tag ids."), {
      error: "tags must be a JSON array of tag ids.",
    })
    .max(POST_TAGS_MAX, `tags may name at most ${POST_TAGS_MAX} tags.`)
    .optional()
    .describe(`The post's tags, replacing its current ones: ids of the caller's tags, at most ${POST_TAGS_MAX} (docs/tags.md)`),
});
/** The dashboard's share-page password; null removes it (docs/share-passwords.md). The length rule is the domain's. */
export const sharePasswordBody = z.strictObject({
  password: z
    .string({ error: "password must be a string or null." })
    .max(SHARE_PASSWORD_MAX * 4)
    .nullable(),
});

export const updatePostBodyRelay = updatePostBody.extend({
  access: z.array(z.string().min(1).max(64), { error: "access must be a JSON array of usernames." }).max(100).optional(),
});

// Items are checked one by one (a malformed code fails alone, as its index); the list
// itself must be a non-empty array of at most BATCH_MAX_ITEMS distinct strings.
const codes = z
  .array(z.string({ error: "codes must hold strings." }).max(64, "codes must be at most 64 characters each."), {
    error: "codes must be a JSON array of share codes.",
  })
  .min(1, "codes must name at least one post.")
  .max(BATCH_MAX_ITEMS, `codes may name at most ${BATCH_MAX_ITEMS} posts per request.`)
  .refine((list) => new Set(list).size === list.length, "codes must not repeat a code.")
  .describe(`Share codes, 1 to ${BATCH_MAX_ITEMS}, distinct`);

const tagRef = z
  .string({ error: "tag must be a tag id." })
  .min(1, "tag must be a tag id.")
  .max(64, "tag must be a tag id.")
  .describe("tag_add, tag_remove: the caller's tag (its id; docs/tags.md)");

const folderRef = z
  .string({ error: "folder must be a folder id." })
  .min(1, "folder must be a folder id.")
  .max(64, "folder must be a folder id.")
  .describe("folder_add, folder_remove: the caller's folder (its id; docs/folders.md)");

export const batchBody = z.discriminatedUnion(
  "action",
  [
    z.object({ action: z.literal("delete"), codes }),
    z.object({ action: z.literal("privacy"), codes, privacy: privacyField.describe("The new privacy of every post") }),
    z.object({ action: z.literal("folder_add"), codes, folder: folderRef }),
    z.object({ action: z.literal("folder_remove"), codes, folder: folderRef }),
    z.object({ action: z.literal("tag_add"), codes, tag: tagRef }),
    z.object({ action: z.literal("tag_remove"), codes, tag: tagRef }),
    z.object({
      action: z.literal("favorite"),
      codes,
      favorite: z.boolean({ error: "favorite must be true or false." }).describe("favorite: mark (true) or unmark (false) every post"),
    }),
  ],
  { error: `action must be ${BATCH_ACTIONS.join(" or ")}.` },
);
type BatchBody = z.output<typeof batchBody>;

const MAX_PARTS = 50;

export function viewerOf(principal: Principal | null, surface: Surface): Viewer {
  const accessList = surface === "relay";
  if (principal?.kind === "team") return { userId: null, teamId: principal.team.id, accessList };
  return { userId: principal?.user.id ?? null, teamId: null, accessList };
}

/** The request's `file` parts and the files of its `url` fields (docs/url-uploads.md), within the uploader's limits. */
async function receiveUpload(request: RouteRequest, uploader: Uploader, tmpDir: string): Promise<ReceivedFile[]> {
  const hash = screensFiles(moderator());
  const files = await receiveFiles(request, {
    field: "file",
    urlField: "url",
    maxFileBytes: uploader.limits.uploadFileBytes,
    maxRequestBytes: uploader.limits.uploadRequestBytes,
    maxFiles: MAX_PARTS,
    tmpDir,
    hash,
  });
  await fetchUrlEntries(files, tmpDir, urlFetchOptions(uploader.limits.uploadFileBytes, hash));
  return files;
}

/** Found or created before the body is read, so a bad folder is refused before a byte is stored; ignored for team keys (docs/folders.md). */
export async function uploadFolder(principal: Principal, ref: string | null): Promise<string | null> {
  if (ref === null || principal.kind === "team") return null;
  return folderForUpload(principal.user.id, ref);
}

export async function postViewer(items: readonly PostRecord[], viewer: Viewer, surface: Surface, owner: boolean) {
  const liked = await likedAmong(
    viewer.userId,
    items.map((p) => p.id),
  );
  return (p: PostRecord) => postView(p, { owner, liked: liked.has(p.id), surface });
}

export async function handleUpload({ principal, request, surface }: RouteContext<Record<never, never>, KeyKind>) {
  await checkUploadBurst(principal);
  const uploader = uploaderFor(principal);
  const choices = uploadRequestOptions(request.headers, (asked) => postPrivacy(uploader, asked));
  const folderId = await uploadFolder(principal, folderHeader(request.headers));
  choices.domain = await chooseUploadDomain(uploader.userId, request.headers.get(DOMAIN_HEADER));
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

export async function handleAddFiles({ principal, request, surface, params }: RouteContext<{ params: typeof codeParam }, KeyKind>) {
  const target = { code: params.code, viewer: viewerOf(principal, surface) };
  // Ownership first: a stranger's request is refused before its body is read.
  await postForChange(params.code, target.viewer);
  const choices = appendRequestOptions(request.headers);
  const uploader = uploaderFor(principal);
  return withTempDir(async (tmpDir) =>
    appendReply(await publishAppend(uploader, surface, target, await receiveUpload(request, uploader, tmpDir), choices, tmpDir), surface),
  );
}

/** handleGetPost from the read caches; not on Relay, where a read counts a view (a write). */
export function getPostFromCache({ principal, surface, params }: CacheContext<{ params: typeof codeParam }>) {
  if (surface !== "api") return undefined;
  const opened = peekOpenPost(params.code, viewerOf(principal, surface));
  if (!opened) return undefined;
  const { post, owner, liked } = opened;
  // Signed links carry an expiry taken from the clock: such a view is built anew each time.
  if (isHidden(post) || isGated(post)) return { post: postView(post, { owner, liked, surface }) };
  return cachedPostReply(post, owner, liked);
}

/** GET /posts/{code}: openPost (lib/posts/open.ts) decides; on Relay the read counts a view for the client address. */
export async function handleGetPost({ principal, surface, params, ip }: RouteContext<{ params: typeof codeParam }>) {
  const viewer = viewerOf(principal, surface);
  const opened = await openPost(params.code, { viewer, ...(surface === "relay" ? { viewFrom: ip } : {}) });
  if (opened.kind !== "post") throw refusalError(opened);
  return { post: postView(opened.post, { owner: opened.owner, liked: opened.liked, surface }) };
}

interface UpdatePostBody extends Omit<PostChanges, "expiresAt" | "maxViews" | "tagIds"> {
  expires_at?: Date | null;
  max_views?: number | null;
  tags?: string[];
}

async function updatePost(principal: Principal, surface: Surface, code: string, body: UpdatePostBody) {
  const { expires_at, max_views, tags, ...rest } = body;
  const changes = { ...rest, expiresAt: expires_at, maxViews: max_views, tagIds: tags };
  const { post, liked } = await editPost(code, viewerOf(principal, surface), changes);
  return { post: postView(post, { owner: true, liked, surface }) };
}

export async function handleUpdatePost({
  principal,
  surface,
  params,
  body,
}: RouteContext<{ params: typeof codeParam; body: typeof updatePostBody }, KeyKind>) {
  return updatePost(principal, surface, params.code, body);
}

export async function handleUpdatePostRelay({
  principal,
  surface,
  params,
  body,
}: RouteContext<{ params: typeof codeParam; body: typeof updatePostBodyRelay }, KeyKind>) {
  return updatePost(principal, surface, params.code, body);
}

export async function handleSetSharePassword({
  principal,
  params,
  body,
}: RouteContext<{ params: typeof codeParam; body: typeof sharePasswordBody }>) {
  await setSharePassword(params.code, principal.user.id, body.password);
  return { password_protected: body.password !== null };
}

export async function handleDeletePost({ principal, surface, params }: RouteContext<{ params: typeof codeParam }, KeyKind>) {
  await deletePost(params.code, viewerOf(principal, surface));
  return { code: params.code, deleted: true as const };
}

export async function handleListPosts({ principal, surface, query }: RouteContext<{ query: typeof postsQuery }>) {
  const user = principal.user;
  const filters = {
    search: query.search ?? null,
    privacy: query.privacy ?? null,
    tab: query.tab ?? null,
    ...(query.folder ? { folder: query.folder } : {}),
    // Named only when asked for, so the cursors of every older listing stay byte for byte the same.
    ...(query.tag ? { tag: query.tag } : {}),
    ...(query.favorite ? { favorite: query.favorite } : {}),
  };
  // The default order (also asked for by name) pages with today's cursors; any other order's
  // cursors name it, so one from another order is a 400 (docs/gallery-sort.md).
  const sort = query.sort ?? DEFAULT_GALLERY_SORT;
  const named = sort === DEFAULT_GALLERY_SORT ? null : sort;
  const after = query.cursor ? decodeSortedCursor("listPosts", query.cursor, filters, named, gallerySortAccepts(sort)) : undefined;
  const favorite = query.favorite === undefined ? undefined : query.favorite === "true";
  const page = await listOwnPostsSorted(user.id, { ...query, favorite }, sort, query.limit, after);
  const view = await postViewer(page.items, viewerOf(principal, surface), surface, true);
  return sortedPageReply("posts", "listPosts", named, filters, page, view);
}

/** The action to run; a folder action first checks that the folder is the caller's (404 for the whole request). */
async function batchAction(principal: Principal, body: BatchBody): Promise<BatchAction> {
  switch (body.action) {
    case "delete":
      return { action: "delete" };
    case "privacy":
      return { action: "privacy", privacy: body.privacy };
    case "favorite":
      return { action: "favorite", favorite: body.favorite };
    case "tag_add":
    case "tag_remove": {
      // Tags are a person's: a team key has none.
      if (principal.kind === "team") throw tagNotFound();
      const tag = await getTag(principal.user.id, body.tag);
      const step = body.action === "tag_add" ? addTagToPost : removeTagFromPost;
      return { action: body.action, apply: (code, viewer) => step(code, viewer, tag.id) };
    }
    default: {
      // Folders are a person's: a team key has none.
      if (principal.kind === "team") throw folderNotFound();
      const folder = await getFolder(principal.user.id, body.folder);
      if (body.action === "folder_add") return { action: body.action, apply: (code, viewer) => addPostToFolder(code, viewer, folder.id) };
      return { action: body.action, apply: (code) => removePostFromFolder(code, folder.id) };
    }
  }
}

export async function handleBatchPosts({ principal, surface, body }: RouteContext<{ body: typeof batchBody }, KeyKind>) {
  const action = await batchAction(principal, body);
  return batchView(body.action, await runBatch(body.codes, viewerOf(principal, surface), action));
}

/** GET /posts/{code}/qr: for anyone who may read the post (a gated one: its owner); spends no view (docs/qr-and-visits.md). */
export async function handleGetPostQr({
  principal,
  surface,
  params,
  query,
}: RouteContext<{ params: typeof codeParam; query: typeof qrQuery }>) {
  const post = await readPostAddress(params.code, viewerOf(principal, surface));
  const image = await drawQr(shareUrl(post), query.format, query.size);
  return qrResponse(image, post.code, query.format, query.download === "true");
}
