/** Posts and uploads (API and Relay): docs/uploads.md. */
import { z } from "zod";
import { defineRoute } from "../../http/route";
import { codeParam, postsQuery, updatePostBody, updatePostBodyRelay } from "../params";
import { paged, Post } from "../../presenters/schemas";
import { batchBody, batchReply, handleBatch } from "../batch";
import {
  handleAddFiles,
  handleDeletePost,
  handleGetPost,
  getPostFromCache,
  handleListPosts,
  handleUpdatePost,
  handleUpload,
} from "../posts";
import { BOTH, RELAY, PERSONAL_AND_TEAM, UPLOAD_FIELDS, UPLOAD_HEADERS, FILE_HEADERS, postReply, deleted, failedEntry } from "./shared";

const upload = defineRoute({
  id: "upload",
  method: "POST",
  path: "/upload",
  surfaces: BOTH,
  summary: "Upload one or more files; each becomes part of a post",
  keys: PERSONAL_AND_TEAM,
  refusesLapsedTeam: true,
  rateLimit: "upload",
  multipart: { fields: UPLOAD_FIELDS },
  headers: UPLOAD_HEADERS,
  response: z.union([
    z.object({ url: z.url(), post: Post, failed: z.array(failedEntry).optional() }),
    z.object({ posts: z.array(Post), failed: z.array(failedEntry).optional() }),
  ]),
  handler: ({ principal, request, surface }) => handleUpload(principal, request, surface),
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
  response: paged("posts", Post),
  handler: ({ principal, surface, query }) => handleListPosts(principal, surface, query),
});

const getPost = defineRoute({
  id: "getPost",
  method: "GET",
  path: "/posts/{code}",
  surfaces: BOTH,
  summary: "One post",
  rateLimit: "posts_get",
  params: codeParam,
  response: postReply,
  handler: ({ principal, surface, params, ip }) => handleGetPost(principal, surface, params.code, ip),
  fromCache: ({ principal, surface, params }) => getPostFromCache(principal, surface, params.code),
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
  response: postReply,
} as const;

const updatePostApi = defineRoute({
  ...updatePostFields,
  handler: ({ principal, surface, params, body }) => handleUpdatePost(principal, surface, params.code, body),
});

const updatePostRelay = defineRoute({
  ...updatePostFields,
  id: "updatePostRelay",
  surfaces: RELAY,
  summary: "Edit a post; on Relay also its access list",
  body: updatePostBodyRelay,
  handler: ({ principal, surface, params, body }) => handleUpdatePost(principal, surface, params.code, body),
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
  response: deleted("code"),
  handler: ({ principal, surface, params }) => handleDeletePost(principal, surface, params.code),
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
  response: batchReply,
  handler: ({ principal, surface, body }) => handleBatch(principal, surface, body),
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
  multipart: { fields: UPLOAD_FIELDS },
  headers: FILE_HEADERS,
  response: z.object({ post: Post, failed: z.array(failedEntry).optional() }),
  handler: ({ principal, request, surface, params }) => handleAddFiles(principal, request, surface, params.code),
});

export const postRoutes = [upload, listPosts, getPost, updatePostApi, updatePostRelay, deletePost, batchPosts, addFiles];
