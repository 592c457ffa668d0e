/** The folder object (docs/folders.md) with the view that builds it from lib/folders records. */
import { z } from "zod";
import { FOLDER_PRIVACIES, folderPageUrl, type FolderRecord } from "@/lib/folders/folders";

/** Also the request's `privacy` (lib/routes/folders.ts): one enum, one description. */
export const FolderPrivacy = z
  .enum(FOLDER_PRIVACIES, { error: "privacy must be public or private." })
  .describe("public: the folder has a page at /f/{code}; private (default): only its owner sees it");

export const Folder = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    privacy: FolderPrivacy,
    post_count: z.number().int(),
    url: z.url().nullable().describe("The public page (PUBLIC_URL/f/{code}); null while private"),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: "Folder" });

export const FolderReply = z.object({ folder: Folder });
export const FolderList = z.object({ folders: z.array(Folder) });

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
