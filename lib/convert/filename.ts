/**
 * The converted file's name in `Content-Disposition` (docs/convert.md, "The reply"). The
 * client's name is untrusted (paths, controls, quotes, bidi overrides, names Windows refuses).
 */

export const FALLBACK_BASE_NAME = "converted";
export const MAX_BASE_NAME_LENGTH = 100;

// C0/C1 controls and DEL; bidi embeddings/overrides/isolates (U+202A–U+202E, U+2066–U+2069),
// which can make "evil‮gnp.exe" display as "evilexe.png"; zero-width and BOM characters.
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;
// Reserved in Windows file names; `"` and `\` would also break the quoted header value.
const RESERVED = /[<>:"/\\|?*]/g;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;
// Only a short alphanumeric suffix counts as an extension: "Report v1.2 final" keeps its dot.
const EXTENSION = /\.[A-Za-z0-9]{1,10}$/;

export function attachmentFilename(clientName: string, ext: string): string {
  return `${baseName(clientName)}.${ext}`;
}

function baseName(clientName: string): string {
  // Browsers send the bare name, but some clients send a full path (either separator).
  const last = clientName.split(/[/\\]/).pop() ?? "";
  let name = last.normalize("NFC").replace(INVISIBLE, "");
  if (EXTENSION.test(name) && name.lastIndexOf(".") > 0) name = name.slice(0, name.lastIndexOf("."));
  name = name
    .replace(RESERVED, "_")
    .replace(/\s+/g, " ")
    // Leading dots hide files on Unix; trailing dots and spaces are dropped by Windows.
    .replace(/^[\s.]+|[\s.]+$/g, "");
  name = Array.from(name).slice(0, MAX_BASE_NAME_LENGTH).join("").trimEnd();
  if (!name) return FALLBACK_BASE_NAME;
  return WINDOWS_DEVICE.test(name) ? `_${name}` : name;
}

/**
 * A plain-ASCII `filename` plus RFC 5987 `filename*` when the fallback had to change the name
 * (RFC 6266 §4.3). `%` stays out of the fallback: some clients percent-decode `filename`.
 */
export function contentDisposition(filename: string): string {
  const ascii = asciiFallback(filename);
  const header = `attachment; filename="${ascii}"`;
  return ascii === filename ? header : `${header}; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

function asciiFallback(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "") // é → e once the accent is a separate mark
    .replace(/[^\x20-\x7e]|[%"\\]/g, "_");
}

/** encodeURIComponent leaves ' ( ) * unescaped, which RFC 5987's attr-char does not allow. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
