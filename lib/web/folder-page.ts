/** A public folder's page data (docs/folders.md). */
import { isDomainError } from "@/lib/errors";
import { findPublicFolder, folderPageUrl, listFolderPage } from "@/lib/folders/folders";
import { guestUploadsOpen } from "@/lib/folders/guest";
import { decodeCursor, encodeCursor } from "@/lib/http/cursor";
import { postView } from "@/lib/presenters/posts";
import type { PostJson } from "./share";

export const FOLDER_PAGE_SIZE = 24;
const ENDPOINT = "folderPage";

export type FolderPage =
  | {
      kind: "folder";
      name: string;
      code: string;
      username: string;
      url: string;
      posts: PostJson[];
      nextCursor: string | null;
      /** The folder takes guest uploads now (docs/guest-uploads.md): the page links to /f/{code}/upload. */
      guestUploads: boolean;
    }
  | { kind: "not_found" };

/** A cursor that is not this folder's is ignored (first page). */
export async function loadFolderPage(code: string, cursor: string | undefined): Promise<FolderPage> {
  if (!/^[A-Za-z0-9]{4,64}$/.test(code)) return { kind: "not_found" };
  const folder = await findPublicFolder(code);
  if (!folder) return { kind: "not_found" };
  const filters = { folder: folder.id };
  let after;
  if (cursor) {
    try {
      after = decodeCursor(ENDPOINT, cursor, filters);
    } catch (error) {
      if (!isDomainError(error)) throw error;
    }
  }
  const page = await listFolderPage(folder.id, FOLDER_PAGE_SIZE, after);
  return {
    kind: "folder",
    name: folder.name,
    code: folder.code,
    username: folder.username,
    url: folderPageUrl(folder.code),
    // Signed URLs of unlisted posts are fine here: the folder's owner chose to show them.
    posts: page.items.map((p) => postView(p, { owner: false, liked: false, surface: "relay", primaryOnly: true })),
    nextCursor: page.next ? encodeCursor(ENDPOINT, page.next, filters) : null,
    guestUploads: guestUploadsOpen(folder.guest),
  };
}
