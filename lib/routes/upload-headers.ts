/** POST /upload's options from its headers (tus Upload-Metadata reads as the same); a bad value is 400 naming the header. */
import { DomainError } from "@/lib/errors";
import { folderName } from "@/lib/folders/folders";
import { booleanHeader, privacyHeader, type Privacy } from "@/lib/http/parse";
import { type ExpirySettings, parseExpiry, parseMaxViews } from "@/lib/posts/expiry-rules";
import type { UploadChoices } from "@/lib/uploads/publish";
import { POST_TYPES, type PostType } from "@/lib/uploads/upload";

function postTypeHeader(headers: Headers): PostType {
  const raw = headers.get("post-type");
  if (raw === null || raw.trim() === "") return "album";
  const v = raw.trim().toLowerCase();
  if ((POST_TYPES as readonly string[]).includes(v)) return v as PostType;
  throw new DomainError("invalid_request", `Header post-type must be ${POST_TYPES.join(" or ")}.`);
}

/** The privacy header is handed to the domain unread (`privacyOf`), so a value that is ignored is never refused. */
export function uploadRequestOptions(headers: Headers, privacyOf: (asked: () => Privacy) => Privacy): UploadChoices {
  return {
    privacy: privacyOf(() => privacyHeader(headers)),
    keepMetadata: booleanHeader(headers, "include-metadata", false),
    priority: booleanHeader(headers, "priority", true),
    postType: postTypeHeader(headers),
    expiry: expiryHeaders(headers),
  };
}

export function appendRequestOptions(headers: Headers): Pick<UploadChoices, "keepMetadata" | "priority"> {
  return {
    keepMetadata: booleanHeader(headers, "include-metadata", false),
    priority: booleanHeader(headers, "priority", true),
  };
}

export function expiryHeaders(headers: Headers): ExpirySettings {
  const at = headers.get("expires-at");
  const views = headers.get("max-views");
  return {
    ...(at !== null && at.trim() !== "" ? { expiresAt: parseExpiry(at, "Header expires-at") } : {}),
    ...(views !== null && views.trim() !== "" ? { maxViews: parseMaxViews(views, "Header max-views") } : {}),
  };
}

/** The `folder` header (docs/folders.md): a non-ASCII name comes percent-encoded; one that does not decode is taken as sent. */
export function folderHeader(headers: Headers): string | null {
  const raw = headers.get("folder");
  if (raw === null || raw.trim() === "") return null;
  let value = raw.trim();
  try {
    value = decodeURIComponent(value);
  } catch {
    // Not percent-encoding: the name as sent.
  }
  return folderRef(value, "Header folder");
}

/** Upload-Metadata's `folder` (docs/resumable-uploads.md) comes here directly: its base64 already carries UTF-8. */
export function folderRef(value: string | undefined, what: string): string | null {
  if (value === undefined || value.trim() === "") return null;
  try {
    return folderName(value.trim());
  } catch (error) {
    throw new DomainError("invalid_request", `${what}: ${error instanceof Error ? error.message : "not a folder name."}`);
  }
}
