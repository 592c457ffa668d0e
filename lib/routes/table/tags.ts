/** The account's tags (API and Relay; docs/tags.md). */
import { defineRoute } from "@/lib/http/route";
import { DeletedId } from "@/lib/presenters/shared";
import { TagList, TagReply } from "@/lib/presenters/tags";
import { idParam } from "@/lib/routes/params";
import { createTagBody, handleCreateTag, handleDeleteTag, handleListTags, handleUpdateTag, updateTagBody } from "@/lib/routes/tags";
import { BOTH } from "./shared";

export const tagRoutes = [
  defineRoute({
    id: "listTags",
    method: "GET",
    path: "/tags",
    surfaces: BOTH,
    summary: "The caller's tags, by name (their posts: GET /posts?tag={id})",
    galleryAccess: true,
    rateLimit: "tags_read",
    response: TagList,
    handler: handleListTags,
  }),
  defineRoute({
    id: "createTag",
    method: "POST",
    path: "/tags",
    surfaces: BOTH,
    summary: "Create a tag (a name and a colour), seen by its owner only",
    galleryAccess: true,
    rateLimit: "tags_write",
    body: createTagBody,
    response: TagReply,
    handler: handleCreateTag,
  }),
  defineRoute({
    id: "updateTag",
    method: "PATCH",
    path: "/tags/{id}",
    surfaces: BOTH,
    summary: "Rename a tag or change its colour",
    galleryAccess: true,
    rateLimit: "tags_write",
    params: idParam,
    body: updateTagBody,
    response: TagReply,
    handler: handleUpdateTag,
  }),
  defineRoute({
    id: "deleteTag",
    method: "DELETE",
    path: "/tags/{id}",
    surfaces: BOTH,
    summary: "Delete a tag; it comes off every post, the posts stay",
    galleryAccess: true,
    rateLimit: "tags_write",
    params: idParam,
    response: DeletedId,
    handler: handleDeleteTag,
  }),
];
