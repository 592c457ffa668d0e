/** Handlers of the folders area (docs/folders.md): personal keys only; app keys need gallery access. */
import { z } from "zod";
import { env } from "@/lib/config/env";
import { isDomainError } from "@/lib/errors";
import { withTempDir } from "@/lib/files/temp";
import { createFolder, deleteFolder, FOLDER_NAME_MAX_LENGTH, getFolder, listFolders, updateFolder } from "@/lib/folders/folders";
import {
  changeGuestUploads,
  findGuestDrop,
  GUEST_MAX_FILES_LIMIT,
  GUEST_PASSWORD_MAX,
  type GuestSettingsChange,
  guestUploadsClosed,
} from "@/lib/folders/guest";
import type { RouteContext, RouteRequest } from "@/lib/http/route";
import { moderator, screensFiles } from "@/lib/moderation/moderator";
import { parseExpiry } from "@/lib/posts/expiry-rules";
import { FolderPrivacy, folderView, guestUploadView } from "@/lib/presenters/folders";
import { accountOf } from "@/lib/types/principal";
import { checkGuestBurst, guestReceiveLimits, publishGuestUpload } from "@/lib/uploads/guest";
import { receiveFiles } from "@/lib/uploads/multipart";
import { requireGuestAccess } from "@/lib/web/guest-access";
import type { codeParam, idParam } from "./params";

const name = z
  .string({ error: "name must be a string." })
  .max(FOLDER_NAME_MAX_LENGTH * 4, `name must be at most ${FOLDER_NAME_MAX_LENGTH} characters.`)
  .describe(`1 to ${FOLDER_NAME_MAX_LENGTH} characters, one line; unique per user, any case`);

export const createFolderBody = z.object({ name, privacy: FolderPrivacy.optional() });

const cap = (field: string, max: number) =>
  z
    .number({ error: `guest_uploads.${field} must be a whole number from 1 to ${max}, or null.` })
    .int({ error: `guest_uploads.${field} must be a whole number from 1 to ${max}, or null.` })
    .min(1, { error: `guest_uploads.${field} must be a whole number from 1 to ${max}, or null.` })
    .max(max, { error: `guest_uploads.${field} must be a whole number from 1 to ${max}, or null.` })
    .nullable()
    .optional();

/** PATCH /folders/{id}'s `guest_uploads` (docs/guest-uploads.md): absent fields stay, null removes. */
const guestUploadsBody = z
  .object(
    {
      enabled: z.boolean({ error: "guest_uploads.enabled must be true or false." }).optional().describe("Open the folder to guests"),
      password: z
        .string({ error: "guest_uploads.password must be a string or null." })
        .max(GUEST_PASSWORD_MAX * 4, `guest_uploads.password must be at most ${GUEST_PASSWORD_MAX} characters.`)
        .nullable()
        .optional()
        .describe("8 to 200 characters; null removes it. Never shown again (password_protected says whether one is set)"),
      max_file_bytes: cap("max_file_bytes", Number.MAX_SAFE_INTEGER).describe("Largest file a guest may send (within the plan's)"),
      max_files: cap("max_files", GUEST_MAX_FILES_LIMIT).describe("Files guests may send in all"),
      max_bytes: cap("max_bytes", Number.MAX_SAFE_INTEGER).describe("Bytes guests may send in all"),
      expires_at: z
        .string({ error: "guest_uploads.expires_at must be a string or null." })
        .nullable()
        .optional()
        .transform((v, ctx) => {
          if (v === null || v === undefined) return v;
          try {
            return parseExpiry(v, "guest_uploads.expires_at");
          } catch (error) {
            ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : "guest_uploads.expires_at is not valid." });
            return z.NEVER;
          }
        })
        .meta({ description: "When the upload page closes: an ISO 8601 time with a zone or a duration from now (7d); null: never" }),
    },
    { error: "guest_uploads must be an object." },
  )
  .describe("Guest uploads into this folder (docs/guest-uploads.md)");

export const updateFolderBody = z
  .object({ name: name.optional(), privacy: FolderPrivacy.optional(), guest_uploads: guestUploadsBody.optional() })
  .refine(
    (b) => b.name !== undefined || b.privacy !== undefined || b.guest_uploads !== undefined,
    "Send name, privacy, guest_uploads or more.",
  );

type GuestUploadsBody = z.output<typeof guestUploadsBody>;

function guestChange(body: GuestUploadsBody): GuestSettingsChange {
  return {
    enabled: body.enabled,
    password: body.password,
    maxFileBytes: body.max_file_bytes,
    maxFiles: body.max_files,
    maxBytes: body.max_bytes,
    expiresAt: body.expires_at,
  };
}

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
  const userId = accountOf(principal).id;
  if (body.guest_uploads) await changeGuestUploads(userId, params.id, guestChange(body.guest_uploads));
  const renamed = body.name !== undefined || body.privacy !== undefined;
  return { folder: folderView(renamed ? await updateFolder(userId, params.id, body) : await getFolder(userId, params.id)) };
}

export async function handleDeleteFolder({ principal, params }: RouteContext<ById>) {
  await deleteFolder(accountOf(principal).id, params.id);
  return { id: params.id, deleted: true as const };
}

type GuestContext = RouteContext<{ params: typeof codeParam }, "personal", "none">;

/** Refused before the body is read when the page is closed, locked or the address uploads too fast. */
async function receiveGuestUpload(code: string, request: RouteRequest, ip: string) {
  const drop = await findGuestDrop(code);
  if (!drop) throw guestUploadsClosed();
  await requireGuestAccess(drop, request.headers, ip);
  await checkGuestBurst(ip);
  const limits = guestReceiveLimits(drop);
  return withTempDir(async (tmpDir) => {
    const files = await receiveFiles(request, {
      field: "file",
      maxFileBytes: limits.maxFileBytes,
      maxRequestBytes: limits.maxRequestBytes,
      maxFiles: limits.maxFiles,
      tmpDir,
      hash: screensFiles(moderator()),
    });
    return { files, outcome: await publishGuestUpload(drop, limits.uploader, files, tmpDir) };
  });
}

export async function handleGuestUpload({ params, request, ip }: GuestContext) {
  const { files, outcome } = await receiveGuestUpload(params.code, request, ip);
  return guestUploadView(outcome, files);
}

/** The upload page's plain form (no JavaScript): answered with a 303 back to the page. */
export async function handleGuestUploadForm({ params, request, ip }: GuestContext): Promise<Response> {
  const page = `/f/${params.code}/upload`;
  let query: Record<string, string>;
  try {
    const { outcome } = await receiveGuestUpload(params.code, request, ip);
    query = { sent: String(outcome.posts.length), failed: String(outcome.failed.length) };
    if (outcome.failed.length) query.error = outcome.failed[0].error.type;
  } catch (error) {
    if (!isDomainError(error)) throw error;
    query = { error: error.type };
  }
  const location = new URL(`${page}?${new URLSearchParams(query).toString()}`, env().PUBLIC_URL).toString();
  return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}
