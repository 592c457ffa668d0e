/**
 * Resumable uploads over tus 1.0, the HTTP half (docs/resumable-uploads.md says why these are our
 * own routes rather than @tus/server).
 */
import type { RouteRequest } from "@/lib/types/route-request";
import { join } from "node:path";
import { z } from "zod";
import { hasGalleryAccess, type Principal } from "@/lib/types/principal";
import { env } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";
import { abandonRequestBody, requestBody } from "@/lib/files/request-body";
import type { KeyKind, RouteContext, Surface } from "@/lib/http/route";
import { PLANS, planLimits } from "@/lib/plans";
import { postForChange } from "@/lib/posts/read";
import { checkUploadBurst } from "@/lib/uploads/abuse";
import type { ReceivedFile } from "@/lib/uploads/multipart";
import {
  appendChunk,
  assembleResumable,
  createResumable,
  findResumable,
  finishResumable,
  lockResumable,
  receiveBody,
  removeResumable,
  terminateResumable,
  type ResumableLock,
  type ResumableUpload,
} from "@/lib/uploads/resumable";
import { withTempDir } from "@/lib/files/temp";
import { chooseUploadDomain, domainName, domainsOn } from "@/lib/domains/domains";
import { publishAppend, publishUpload, postPrivacy, type UploadChoices } from "@/lib/uploads/publish";
import { uploaderFor, type Uploader } from "@/lib/uploads/uploader";
import { addToFolder } from "@/lib/folders/folders";
import { uploadFolder, viewerOf } from "./posts";
import { folderHeader, folderRef, uploadRequestOptions } from "./upload-headers";
import { settingsSource } from "@/lib/config/stored-settings";

export const TUS_VERSION = "1.0.0";
export const tusIdParam = z.object({ id: z.string().regex(/^[0-9a-f]{24}$/, "id is not a valid upload id.") });
type TusContext = RouteContext<Record<never, never>, KeyKind>;
type TusIdContext = RouteContext<{ params: typeof tusIdParam }, KeyKind>;
export const TUS_EXTENSIONS = "creation,creation-with-upload,termination,expiration";
const OFFSET_TYPE = "application/offset+octet-stream";
/** Upload-Metadata is a handful of short values; a bigger header is refused. */
const METADATA_MAX_BYTES = 4096;
const OPTION_KEYS = ["post-privacy", "include-metadata", "priority", "post-type"] as const;

/** On every reply of the tus routes, errors included. */
export const TUS_REPLY_HEADERS: Readonly<Record<string, string>> = { "tus-resumable": TUS_VERSION, "tus-version": TUS_VERSION };

/** OPTIONS: the largest file any plan accepts (the caller's own cap is checked at creation). */
export function tusOptionsHeaders(): Record<string, string> {
  const max = Math.max(...[...PLANS, "team" as const].map((plan) => planLimits(plan, settingsSource()).uploadFileBytes));
  return { "tus-extension": TUS_EXTENSIONS, "tus-max-size": String(max) };
}

function checkTusResumable(headers: Headers): void {
  const version = headers.get("tus-resumable");
  if (version?.trim() !== TUS_VERSION) {
    throw new DomainError("invalid_request", `Send Tus-Resumable: ${TUS_VERSION} (the only tus version served).`, 412);
  }
}

function integerHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  if (raw === null) return undefined;
  const v = raw.trim();
  if (!/^\d{1,16}$/.test(v) || !Number.isSafeInteger(Number(v))) {
    throw new DomainError("invalid_request", `Header ${name} must be a non-negative integer.`);
  }
  return Number(v);
}

export function parseMetadata(header: string | null): Map<string, string> {
  const pairs = new Map<string, string>();
  if (header === null || header.trim() === "") return pairs;
  if (Buffer.byteLength(header) > METADATA_MAX_BYTES) {
    throw new DomainError("invalid_request", `Header Upload-Metadata is over ${METADATA_MAX_BYTES} bytes.`);
  }
  for (const item of header.split(",")) {
    const [key, value, extra] = item.trim().split(" ");
    if (!key || extra !== undefined || !/^[\x21-\x7e]+$/.test(key) || pairs.has(key)) {
      throw new DomainError("invalid_request", "Header Upload-Metadata must be comma-separated `key base64value` pairs with unique keys.");
    }
    if (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
      throw new DomainError("invalid_request", `Upload-Metadata value of ${key} is not base64.`);
    }
    pairs.set(key, value === undefined ? "" : Buffer.from(value, "base64").toString("utf8"));
  }
  return pairs;
}

interface Destination {
  filename: string;
  target: string | null;
  options: UploadChoices;
  folder: string | null;
  domain: string | null;
}

function destinationOf(uploader: Uploader, metadata: Map<string, string>): Destination {
  // The same parsers (and errors) as POST /upload's headers.
  const headers = new Headers();
  for (const key of OPTION_KEYS) {
    const value = metadata.get(key);
    if (value !== undefined) headers.set(key, value);
  }
  const target = metadata.get("post")?.trim() || null;
  const options = uploadRequestOptions(headers, (asked) => postPrivacy(uploader, asked));
  const folder = folderRef(metadata.get("folder"), "Upload-Metadata folder");
  const domain = metadata.get("domain") ?? null;
  return { filename: metadata.get("filename") ?? metadata.get("name") ?? "", target, options, folder, domain };
}

const subjectOf = (principal: Principal): string => uploaderFor(principal).account.subject;
const locationOf = (surface: Surface, id: string) => `${surface === "api" ? env().apiUrl : env().relayUrl}/tus/${id}`;

function uploadHeaders(upload: ResumableUpload): Record<string, string> {
  return {
    "upload-offset": String(upload.offset),
    "upload-expires": upload.expiresAt.toUTCString(),
    ...(upload.postCode ? { "upload-post": upload.postCode } : {}),
  };
}

export async function handleTusCreate({ principal, request, surface }: TusContext): Promise<Response> {
  const headers = request.headers;
  checkTusResumable(headers);
  await checkUploadBurst(principal);
  if (headers.has("upload-defer-length")) {
    throw new DomainError("invalid_request", "Upload-Defer-Length is not supported: send Upload-Length.");
  }
  const length = integerHeader(headers, "upload-length");
  if (length === undefined) throw new DomainError("invalid_request", "Header Upload-Length is required.");
  if (length === 0) throw new DomainError("invalid_request", "The file is empty.");
  const uploader = uploaderFor(principal);
  const cap = uploader.limits.uploadFileBytes;
  if (length > cap) throw new DomainError("file_too_large", `The file is over the limit of ${cap} bytes for this plan.`);
  const bodyLength = integerHeader(headers, "content-length");
  const carriesBody = (bodyLength ?? 0) > 0 || headers.has("transfer-encoding");
  if (carriesBody) checkOffsetType(headers);
  const raw = headers.get("upload-metadata") ?? "";
  const destination = destinationOf(uploader, parseMetadata(raw));
  // Refused now, before the bytes; a domain no longer offered when the post is read is not used (docs/domains.md).
  await chooseUploadDomain(uploader.userId, destination.domain);
  // A post to append to must be the caller's and have room: refused now, not after the bytes.
  if (destination.target) {
    if (!hasGalleryAccess(principal)) throw new DomainError("forbidden", "This key has no gallery access.");
    await postForChange(destination.target, viewerOf(principal, surface));
  }
  // The folder the new post goes in, found or created now as POST /upload does before its
  // body: Upload-Metadata's `folder`, else this request's `folder` header. Appending makes no
  // post, so a folder is not looked at then (docs/resumable-uploads.md, "Metadata").
  const folderId = destination.target ? null : await uploadFolder(principal, destination.folder ?? folderHeader(headers));
  const upload = await createResumable({ uploader, surface, length, metadata: raw, folderId });
  const reply: Record<string, string> = { location: locationOf(surface, upload.id), ...uploadHeaders(upload) };
  if (carriesBody) {
    const lock = await lockResumable(upload, 0);
    try {
      Object.assign(reply, uploadHeaders(await receivePatch(principal, request, surface, upload, 0, lock)));
    } finally {
      await lock.release();
    }
  }
  return new Response(null, { status: 201, headers: reply });
}

function checkOffsetType(headers: Headers): void {
  const type = headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (type !== OFFSET_TYPE) throw new DomainError("invalid_request", `Send the bytes as Content-Type: ${OFFSET_TYPE}.`, 415);
}

export async function handleTusPatch({ principal, request, surface, params }: TusIdContext): Promise<Response> {
  const { id } = params;
  const headers = request.headers;
  checkTusResumable(headers);
  checkOffsetType(headers);
  const offset = integerHeader(headers, "upload-offset");
  if (offset === undefined) throw new DomainError("invalid_request", "Header Upload-Offset is required.");
  const upload = await findResumable(id, subjectOf(principal));
  if (offset !== upload.offset || upload.state !== "receiving") {
    throw new DomainError("invalid_request", `Upload-Offset ${offset} does not match the upload's offset ${upload.offset}.`, 409, {
      offset: upload.offset,
    });
  }
  // Before a byte of the body is read: a second PATCH of this upload is refused here (423).
  const lock = await lockResumable(upload, offset);
  try {
    const after = await receivePatch(principal, request, surface, upload, offset, lock);
    return new Response(null, { status: 204, headers: uploadHeaders(after) });
  } finally {
    await lock.release();
  }
}

/** A body over the remaining length is 413 and stores nothing; a completing one is published through POST /upload's pipeline. */
async function receivePatch(
  principal: Principal,
  request: RouteRequest,
  surface: Surface,
  upload: ResumableUpload,
  start: number,
  lock: ResumableLock,
): Promise<ResumableUpload> {
  const remaining = upload.length - start;
  const declared = integerHeader(request.headers, "content-length");
  const tooLarge = () => new DomainError("file_too_large", `The body is over the ${remaining} bytes left of Upload-Length.`);
  if (declared !== undefined && declared > remaining) throw tooLarge();
  const source = requestBody(request);
  if (!source) return upload;
  const after = await withTempDir(async (tmpDir) => {
    const path = join(tmpDir, "chunk");
    const { bytes, outcome } = await receiveBody(source, path, remaining, () => abandonRequestBody(request, source));
    if (outcome === "too_large") throw tooLarge();
    // Interrupted or not, what arrived is kept (docs/resumable-uploads.md).
    return appendChunk(upload, start, path, bytes, lock);
  });
  return after.state === "processing" ? publishResumable(principal, surface, after) : after;
}

async function publishResumable(principal: Principal, surface: Surface, upload: ResumableUpload): Promise<ResumableUpload> {
  try {
    const uploader = uploaderFor(principal);
    const destination = destinationOf(uploader, parseMetadata(upload.metadata));
    const code = await withTempDir(async (tmpDir) => {
      const path = await assembleResumable(upload, tmpDir);
      const file: ReceivedFile = { index: 0, filename: destination.filename, path, size: upload.length };
      if (destination.target) {
        const target = { code: destination.target, viewer: viewerOf(principal, surface) };
        return (await publishAppend(uploader, surface, target, [file], destination.options, tmpDir)).post.code;
      }
      const domain = destination.domain && domainsOn() ? domainName(destination.domain) : null;
      const outcome = await publishUpload(uploader, surface, [file], { ...destination.options, domain }, tmpDir);
      if (upload.folderId) {
        await addToFolder(
          upload.folderId,
          outcome.posts.map((p) => p.id),
        );
      }
      return outcome.posts[0].code;
    });
    await finishResumable(upload.id, code);
    return { ...upload, state: "done", postCode: code, chunks: [] };
  } catch (error) {
    // The upload is over either way: nothing of it stays (the pipeline cleaned up its own part).
    await removeResumable(upload.id);
    throw error;
  }
}

export async function handleTusHead({ principal, request, params }: TusIdContext): Promise<Response> {
  checkTusResumable(request.headers);
  const upload = await findResumable(params.id, subjectOf(principal));
  const headers: Record<string, string> = { ...uploadHeaders(upload), "upload-length": String(upload.length) };
  if (upload.metadata) headers["upload-metadata"] = upload.metadata;
  return new Response(null, { status: 200, headers });
}

/** DELETE /tus/{id}: termination; the bytes and the reserved quota go at once. */
export async function handleTusDelete({ principal, request, params }: TusIdContext): Promise<Response> {
  checkTusResumable(request.headers);
  await terminateResumable(await findResumable(params.id, subjectOf(principal)));
  return new Response(null, { status: 204 });
}
