/** Folders of the account's posts (API and Relay; docs/folders.md). */
import { defineRoute } from "@/lib/http/route";
import { FolderList, FolderReply } from "@/lib/presenters/folders";
import { DeletedId } from "@/lib/presenters/shared";
import {
  createFolderBody,
  handleCreateFolder,
  handleDeleteFolder,
  handleGetFolder,
  handleListFolders,
  handleUpdateFolder,
  updateFolderBody,
} from "@/lib/routes/folders";
import { idParam } from "@/lib/routes/params";
import { BOTH } from "./shared";

export const folderRoutes = [
  defineRoute({
    id: "listFolders",
    method: "GET",
    path: "/folders",
    surfaces: BOTH,
    summary: "The caller's folders, by name",
    galleryAccess: true,
    rateLimit: "folders_read",
    response: FolderList,
    handler: handleListFolders,
  }),
  defineRoute({
    id: "createFolder",
    method: "POST",
    path: "/folders",
    surfaces: BOTH,
    summary: "Create a folder",
    galleryAccess: true,
    rateLimit: "folders_write",
    body: createFolderBody,
    response: FolderReply,
    handler: handleCreateFolder,
  }),
  defineRoute({
    id: "getFolder",
    method: "GET",
    path: "/folders/{id}",
    surfaces: BOTH,
    summary: "One folder (its posts: GET /posts?folder={id})",
    galleryAccess: true,
    rateLimit: "folders_read",
    params: idParam,
    response: FolderReply,
    handler: handleGetFolder,
  }),
  defineRoute({
    id: "updateFolder",
    method: "PATCH",
    path: "/folders/{id}",
    surfaces: BOTH,
    summary: "Rename a folder or change its privacy",
    galleryAccess: true,
    rateLimit: "folders_write",
    params: idParam,
    body: updateFolderBody,
    response: FolderReply,
    handler: handleUpdateFolder,
  }),
  defineRoute({
    id: "deleteFolder",
    method: "DELETE",
    path: "/folders/{id}",
    surfaces: BOTH,
    summary: "Delete a folder; its posts stay",
    galleryAccess: true,
    rateLimit: "folders_write",
    params: idParam,
    response: DeletedId,
    handler: handleDeleteFolder,
  }),
];
