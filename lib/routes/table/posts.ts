/** Posts and uploads (API and Relay): docs/uploads.md. */
import { defineRoute } from "@/lib/http/route";
import { AddFilesReply, BatchReply, PostPage, PostReply, SharePasswordReply, UploadReply } from "@/lib/presenters/posts";
import { DeletedCode } from "@/lib/presenters/shared";
import { codeParam, qrQuery } from "@/lib/routes/params";
import {
  batchBody,
  getPostFromCache,
  handleAddFiles,
  handleBatchPosts,
  handleDeletePost,
  handleGetPost,
  handleGetPostQr,
  handleListPosts,
  handleSetSharePassword,
  handleUpdatePost,
  handleUpdatePostRelay,
  handleUpload,
  postsQuery,
  sharePasswordBody,
  updatePostBody,
  updatePostBodyRelay,
} from "@/lib/routes/posts";
import { BOTH, RELAY, PERSONAL_AND_TEAM, UPLOAD_FIELDS, UPLOAD_TEXT_FIELDS, UPLOAD_HEADERS, FILE_HEADERS } from "./shared";

const upload = defineRoute({
  id: "upload",
  method: "POST",
  path: "/upload",
  surfaces: BOTH,
  summary: "Upload one or more files; each becomes part of a post",
  keys: PERSONAL_AND_TEAM,
  refusesLapsedTeam: true,
  rateLimit: "upload",
  multipart: { fields: UPLOAD_FIELDS, textFields: UPLOAD_TEXT_FIELDS },
  headers: UPLOAD_HEADERS,
  response: UploadReply,
  handler: handleUpload,
});

const listPosts = defineRoute({
  id: "listPosts",
  method: "GET",
  path: "/posts",
  surfaces: BOTH,
  summary: "The caller's own posts, newest first",
  galleryAccess: true,
  rateLimit: "posts_list",
  query: postsQuery,
  response: PostPage,
  handler: handleListPosts,
});

const getPost = defineRoute({
  id: "getPost",
  method: "GET",
  path: "/posts/{code}",
  surfaces: BOTH,
  summary: "One post",
  rateLimit: "posts_get",
  params: codeParam,
  response: PostReply,
  handler: handleGetPost,
  fromCache: getPostFromCache,
});

const updatePostFields = {
  id: "updatePost",
  method: "PATCH",
  path: "/posts/{code}",
  surfaces: ["api"],
  summary: "Edit a post's title, description or privacy",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_update",
  params: codeParam,
  body: updatePostBody,
  response: PostReply,
} as const;

const updatePostApi = defineRoute({
  ...updatePostFields,
  handler: handleUpdatePost,
});

const updatePostRelay = defineRoute({
  ...updatePostFields,
  id: "updatePostRelay",
  surfaces: RELAY,
  summary: "Edit a post; on Relay also its access list",
  body: updatePostBodyRelay,
  handler: handleUpdatePostRelay,
});

const deletePost = defineRoute({
  id: "deletePost",
  method: "DELETE",
  path: "/posts/{code}",
  surfaces: BOTH,
  summary: "Delete a post and its files",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_delete",
  params: codeParam,
  response: DeletedCode,
  handler: handleDeletePost,
});

// One request for many posts (docs/bulk-actions.md): its own bucket, one hit per request.
const batchPosts = defineRoute({
  id: "batchPosts",
  method: "POST",
  path: "/posts/batch",
  surfaces: BOTH,
  summary: "Delete many posts, or set their privacy, in one request; each post succeeds or fails alone",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  rateLimit: "posts_batch",
  body: batchBody,
  response: BatchReply,
  handler: handleBatchPosts,
});

const addFiles = defineRoute({
  id: "addFiles",
  method: "POST",
  path: "/posts/{code}/files",
  surfaces: BOTH,
  summary: "Add files to a post (album of at most 9)",
  keys: PERSONAL_AND_TEAM,
  galleryAccess: true,
  refusesLapsedTeam: true,
  rateLimit: "posts_files_add",
  params: codeParam,
  multipart: { fields: UPLOAD_FIELDS, textFields: UPLOAD_TEXT_FIELDS },
  headers: FILE_HEADERS,
  response: AddFilesReply,
  handler: handleAddFiles,
});

// docs/qr-and-visits.md: the share URL as a QR code, for anyone who may read the post.
const getPostQr = defineRoute({
  id: "getPostQr",
  method: "GET",
  path: "/posts/{code}/qr",
  surfaces: BOTH,
  summary: "The post's share URL as a QR code, SVG or PNG",
  rateLimit: "qr",
  params: codeParam,
  query: qrQuery,
  response: { binary: "The QR code (format=svg or png)", mediaTypes: ["image/svg+xml", "image/png"] },
  handler: handleGetPostQr,
});

// The dashboard's post editor (docs/share-passwords.md): a web feature, so not in the OpenAPI
// document (an uploader's configuration must never carry a password); the web sign-in cookie or a
// Relay session sets it, an app key cannot.
const setSharePasswordRoute = defineRoute({
  id: "setSharePassword",
  method: "PUT",
  path: "/posts/{code}/share-password",
  surfaces: RELAY,
  summary: "Set or remove (null) the share page's password of one of the caller's posts",
  rateLimit: "posts_update",
  params: codeParam,
  body: sharePasswordBody,
  response: SharePasswordReply,
  hidden: true,
  handler: handleSetSharePassword,
});

export const postRoutes = [
  upload,
  listPosts,
  getPost,
  updatePostApi,
  updatePostRelay,
  deletePost,
  batchPosts,
  addFiles,
  getPostQr,
  setSharePasswordRoute,
];
