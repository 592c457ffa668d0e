/**
 * The folder endpoints (docs/folders.md) over lib/folders/folders.ts. Personal keys only
 * (folders are a user's; a team key gets 401); app keys need gallery access, as every
 * endpoint that reads or changes the gallery does. Posts go in and out of folders
 * through POST /posts/batch (`folder_add`, `folder_remove`) and the upload's `folder` header.
 */
import { z } from "zod";
import {
  createFolder,
  deleteFolder,
  FOLDER_NAME_MAX_LENGTH,
  FOLDER_PRIVACIES,
  folderPageUrl,
  type FolderRecord,
  getFolder,
  listFolders,
  updateFolder,
} from "../folders/folders";
import { defineRoute } from "../http/route";
import { accountOf } from "../types/principal";
import { idParam } from "./params";

const BOTH = ["api", "relay"] as const;

const privacy = z
  .enum(FOLDER_PRIVACIES, { error: "privacy must be public or private." })
  .describe("public: the folder has a page at /f/{code}; private (default): only its owner sees it");
const name = z
  .string({ error: "name must be a string." })
  .max(FOLDER_NAME_MAX_LENGTH * 4, `name must be at most ${FOLDER_NAME_MAX_LENGTH} characters.`)
  .describe(`1 to ${FOLDER_NAME_MAX_LENGTH} characters, one line; unique per user, any case`);

export const Folder = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    privacy,
    post_count: z.number().int(),
    url: z.url().nullable().describe("The public page (PUBLIC_URL/f/{code}); null while private"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Folder" });

export function folderView(f: FolderRecord): z.input<typeof Folder> {
  return {
    id: f.id,
    code: f.code,
    name: f.name,
    privacy: f.privacy,
    post_count: f.postCount,
    url: f.privacy === "public" ? folderPageUrl(f.code) : null,
    created_at: f.createdAt.toISOString(),
    updated_at: f.updatedAt.toISOString(),
  };
}

const folderReply = z.object({ folder: Folder });

export const folderRoutes = [
  defineRoute({
    id: "listFolders",
    method: "GET",
    path: "/folders",
    surfaces: BOTH,
    summary: "The caller's folders, by name",
    galleryAccess: true,
    rateLimit: "folders_read",
    response: z.object({ folders: z.array(Folder) }),
    handler: async ({ principal }) => ({ folders: (await listFolders(accountOf(principal).id)).map(folderView) }),
  }),
  defineRoute({
    id: "createFolder",
    method: "POST",
    path: "/folders",
    surfaces: BOTH,
    summary: "Create a folder",
    galleryAccess: true,
    rateLimit: "folders_write",
    body: z.object({ name, privacy: privacy.optional() }),
    response: folderReply,
    handler: async ({ principal, body }) => ({ folder: folderView(await createFolder(accountOf(principal).id, body)) }),
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
    response: folderReply,
    handler: async ({ principal, params }) => ({ folder: folderView(await getFolder(accountOf(principal).id, params.id)) }),
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
    body: z
      .object({ name: name.optional(), privacy: privacy.optional() })
      .refine((b) => b.name !== undefined || b.privacy !== undefined, "Send name, privacy or both."),
    response: folderReply,
    handler: async ({ principal, params, body }) => ({ folder: folderView(await updateFolder(accountOf(principal).id, params.id, body)) }),
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
    response: z.object({ id: z.string(), deleted: z.literal(true) }),
    handler: async ({ principal, params }) => {
      await deleteFolder(accountOf(principal).id, params.id);
      return { id: params.id, deleted: true as const };
    },
  }),
];
