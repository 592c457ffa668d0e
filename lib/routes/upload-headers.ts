/**
 * The options of POST /upload from its headers (and of a resumable upload, whose
 * Upload-Metadata is read as the same headers, lib/routes/tus.ts). Each bad value is 400
 * invalid_request naming the header.
 */
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

/**
 * Parses the upload headers in order, post-privacy first. Whether the uploader's privacy is
 * read at all is the domain's decision (`postPrivacy` in lib/uploads/publish.ts, passed as
 * `privacyOf`): the header is handed over unread, so a value that is ignored is never refused.
 */
export function uploadRequestOptions(headers: Headers, privacyOf: (asked: () => Privacy) => Privacy): UploadChoices {
  return {
    privacy: privacyOf(() => privacyHeader(headers)),
    keepMetadata: booleanHeader(headers, "include-metadata", false),
    priority: booleanHeader(headers, "priority", true),
    postType: postTypeHeader(headers),
    expiry: expiryHeaders(headers),
  };
}

/** The options of POST /posts/{code}/files: the files join a post, whose privacy and type stay. */
export function appendRequestOptions(headers: Headers): Pick<UploadChoices, "keepMetadata" | "priority"> {
  return {
    keepMetadata: booleanHeader(headers, "include-metadata", false),
    priority: booleanHeader(headers, "priority", true),
  };
}

/** The upload headers `expires-at` and `max-views`; absent or empty: no limit. */
export function expiryHeaders(headers: Headers): ExpirySettings {
  const at = headers.get("expires-at");
  const views = headers.get("max-views");
  return {
    ...(at !== null && at.trim() !== "" ? { expiresAt: parseExpiry(at, "Header expires-at") } : {}),
    ...(views !== null && views.trim() !== "" ? { maxViews: parseMaxViews(views, "Header max-views") } : {}),
  };
}

/**
 * The `folder` header (docs/folders.md): a folder id or name of the uploader's, or null when
 * absent or empty. Header values are bytes, so a name outside ASCII is sent percent-encoded
 * (UTF-8); a value that does not decode is taken as it is. 400 naming the header when the
 * name cannot be a folder name.
 */
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

/**
 * A folder id or name as given (trimmed; null when empty), or 400 naming where it came from
 * (`what`). Upload-Metadata's `folder` (docs/resumable-uploads.md) comes here directly: its
 * base64 already carries any UTF-8, so it is not percent-decoded.
 */
export function folderRef(value: string | undefined, what: string): string | null {
  if (value === undefined || value.trim() === "") return null;
  try {
    return folderName(value.trim());
  } catch (error) {
    throw new DomainError("invalid_request", `${what}: ${error instanceof Error ? error.message : "not a folder name."}`);
  }
}
