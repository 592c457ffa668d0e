/**
 * Handlers of the folders area (lib/routes/table/folders.ts; docs/folders.md) over
 * lib/folders/folders.ts. Personal keys only (folders are a user's; a team key gets 401);
 * app keys need gallery access, as every endpoint that reads or changes the gallery does.
 * Posts go in and out of folders through POST /posts/batch (`folder_add`, `folder_remove`)
 * and the upload's `folder` header.
 */
import { z } from "zod";
import { createFolder, deleteFolder, FOLDER_NAME_MAX_LENGTH, getFolder, listFolders, updateFolder } from "@/lib/folders/folders";
import type { RouteContext } from "@/lib/http/route";
import { FolderPrivacy, folderView } from "@/lib/presenters/folders";
import { accountOf } from "@/lib/types/principal";
import type { idParam } from "./params";

const name = z
  .string({ error: "name must be a string." })
  .max(FOLDER_NAME_MAX_LENGTH * 4, `name must be at most ${FOLDER_NAME_MAX_LENGTH} characters.`)
  .describe(`1 to ${FOLDER_NAME_MAX_LENGTH} characters, one line; unique per user, any case`);

export const createFolderBody = z.object({ name, privacy: FolderPrivacy.optional() });
export const updateFolderBody = z
  .object({ name: name.optional(), privacy: FolderPrivacy.optional() })
  .refine((b) => b.name !== undefined || b.privacy !== undefined, "Send name, privacy or both.");

type ById = { params: typeof idParam };

export async function handleListFolders({ principal }: RouteContext) {
  return { folders: (await listFolders(accountOf(principal).id)).map(folderView) };
}

export async function handleCreateFolder({ principal, body }: RouteContext<{ body: typeof createFolderBody }>) {
  return { folder: folderView(await createFolder(accountOf(principal).id, body)) };
}

export async function handleGetFolder({ principal, params }: RouteContext<ById>) {
  return { folder: folderView(await getFolder(accountOf(principal).id, params.id)) };
}

export async function handleUpdateFolder({ principal, params, body }: RouteContext<ById & { body: typeof updateFolderBody }>) {
  return { folder: folderView(await updateFolder(accountOf(principal).id, params.id, body)) };
}

export async function handleDeleteFolder({ principal, params }: RouteContext<ById>) {
  await deleteFolder(accountOf(principal).id, params.id);
  return { id: params.id, deleted: true as const };
}
