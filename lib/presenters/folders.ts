/** The folder object (docs/folders.md) with the view that builds it from lib/folders records. */
import { z } from "zod";
import { failedFilesView } from "./failed-files";
import { FOLDER_PRIVACIES, folderPageUrl, type FolderRecord } from "@/lib/folders/folders";
import { guestUploadsOpen, type GuestSettings } from "@/lib/folders/guest";
import type { DomainError } from "@/lib/errors";
import type { PostRecord } from "@/lib/posts/read";

/** Also the request's `privacy` (lib/routes/folders.ts): one enum, one description. */
export const FolderPrivacy = z
  .enum(FOLDER_PRIVACIES, { error: "privacy must be public or private." })
  .describe("public: the folder has a page at /f/{code}; private (default): only its owner sees it");

/** The owner's view of a folder's guest uploads (docs/guest-uploads.md). */
export const GuestUploads = z
  .object({
    enabled: z.boolean().describe("The owner's switch (off by default)"),
    open: z.boolean().describe("Whether guests may upload now: enabled, allowed by the operator (GUEST_UPLOADS) and not expired"),
    password_protected: z.boolean(),
    max_file_bytes: z.number().int().nullable().describe("Largest file a guest may send; null: the owner's plan's"),
    max_files: z.number().int().nullable().describe("Files guests may send in all; null: no cap"),
    max_bytes: z.number().int().nullable().describe("Bytes guests may send in all; null: no cap"),
    expires_at: z.string().nullable().describe("When the upload page closes; null: never"),
    files_received: z.number().int().describe("Files guests sent since the page was last switched on"),
    bytes_received: z.number().int(),
    url: z.url().nullable().describe("The upload page (PUBLIC_URL/f/{code}/upload) while open; else null"),
  })
  .meta({ id: "GuestUploads" });

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
    guest_uploads: GuestUploads,
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
    guest_uploads: guestUploadsView(f.code, f.guest),
  };
}

export function guestUploadsView(code: string, g: GuestSettings): z.input<typeof GuestUploads> {
  const open = guestUploadsOpen(g);
  return {
    enabled: g.enabled,
    open,
    password_protected: g.passwordProtected,
    max_file_bytes: g.maxFileBytes,
    max_files: g.maxFiles,
    max_bytes: g.maxBytes,
    expires_at: g.expiresAt?.toISOString() ?? null,
    files_received: g.files,
    bytes_received: g.bytes,
    url: open ? `${folderPageUrl(code)}/upload` : null,
  };
}

/** POST /guest-uploads/{code}: what was stored (the posts are the owner's and private: no codes or links) and what failed. */
export const GuestUploadReply = z
  .object({
    received: z.array(z.object({ index: z.number().int(), name: z.string(), size: z.number().int(), mime_type: z.string() })),
    failed: z.array(z.object({ index: z.number().int(), error: z.looseObject({ type: z.string(), message: z.string() }) })),
  })
  .meta({ id: "GuestUploadReply" });

/** An upload's outcome (lib/uploads/upload.ts). */
interface GuestOutcome {
  posts: readonly PostRecord[];
  failed: readonly { index: number; error: DomainError }[];
}

export function guestUploadView(outcome: GuestOutcome, files: readonly { index: number }[]): z.input<typeof GuestUploadReply> {
  // One post per file, in request order: the files that did not fail, in order, are the posts.
  const failed = new Set(outcome.failed.map((f) => f.index));
  const stored = files.filter((f) => !failed.has(f.index));
  return {
    received: outcome.posts.map((post, i) => {
      const file = post.files[0];
      return { index: stored[i]?.index ?? i, name: file.name, size: Number(file.size), mime_type: file.mimeType };
    }),
    failed: failedFilesView(outcome.failed),
  };
}
