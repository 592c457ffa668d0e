/** What a non-media file is when UPLOAD_FILES lets it in (docs/file-kinds.md): `text` or `file`. */
import { open } from "node:fs/promises";
import type { UploadFiles } from "@/lib/config/env";
import { languageFor } from "@/lib/text/languages";

export const TEXT_MAX_BYTES = 2 * 1024 * 1024;
export const TEXT_MIME = "text/plain; charset=utf-8";

export type OtherKind =
  | { kind: "text"; mime: typeof TEXT_MIME; language: string; ext: string }
  | { kind: "file"; mime: string; ext: string; audio: boolean; image: boolean };

/** Signatures of common files, for the type a download announces and the share page's player. */
const SIGNATURES: ReadonlyArray<{ test: (b: Buffer) => boolean; mime: string; ext: string }> = [
  { test: (b) => ascii(b, 0, 5) === "%PDF-", mime: "application/pdf", ext: "pdf" },
  { test: (b) => ascii(b, 0, 4) === "PK\x03\x04", mime: "application/zip", ext: "zip" },
  { test: (b) => b[0] === 0x1f && b[1] === 0x8b, mime: "application/gzip", ext: "gz" },
  { test: (b) => ascii(b, 0, 6) === "7z\xbc\xaf\x27\x1c", mime: "application/x-7z-compressed", ext: "7z" },
  { test: (b) => ascii(b, 0, 4) === "fLaC", mime: "audio/flac", ext: "flac" },
  { test: (b) => ascii(b, 0, 4) === "OggS", mime: "audio/ogg", ext: "ogg" },
  { test: (b) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WAVE", mime: "audio/wav", ext: "wav" },
  { test: (b) => ascii(b, 0, 3) === "ID3" || (b[0] === 0xff && ((b[1] ?? 0) & 0xe6) === 0xe2), mime: "audio/mpeg", ext: "mp3" },
  { test: (b) => ascii(b, 4, 8) === "ftyp" && /^M4[AB] $/.test(ascii(b, 8, 12)), mime: "audio/mp4", ext: "m4a" },
  { test: (b) => ascii(b, 4, 8) === "ftyp" && /^avi[fs]$/.test(ascii(b, 8, 12)), mime: "image/avif", ext: "avif" },
  { test: (b) => ascii(b, 4, 8) === "ftyp" && /^(hei[cxms]|hev[cxms]|mif1|msf1)$/.test(ascii(b, 8, 12)), mime: "image/heif", ext: "heic" },
  { test: (b) => ascii(b, 0, 4) === "II*\0" || ascii(b, 0, 4) === "MM\0*", mime: "image/tiff", ext: "tiff" },
];

/** Images that sharp may read though the interface does not list them: shown as a WebP rendition. */
export const EXTRA_IMAGE_MIMES: ReadonlySet<string> = new Set(["image/avif", "image/heif", "image/tiff"]);

const ascii = (b: Buffer, start: number, end: number) => b.toString("latin1", start, Math.min(end, b.length));

export function clientExtension(filename: string): string | null {
  const match = /\.([A-Za-z0-9]{1,10})$/.exec(filename.split(/[\\/]/).pop() ?? "");
  return match ? match[1]!.toLowerCase() : null;
}

/** Valid UTF-8 with no NUL, or null; a BOM is dropped. */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
}

/** Null when UPLOAD_FILES refuses it (the caller answers unsupported_type). */
export async function detectOtherKind(path: string, filename: string, size: number, allowed: UploadFiles): Promise<OtherKind | null> {
  if (allowed === "media") return null;
  const handle = await open(path, "r");
  try {
    const length = Math.min(size, TEXT_MAX_BYTES + 1);
    const bytes = Buffer.alloc(length);
    const { bytesRead } = await handle.read(bytes, 0, length, 0);
    const head = bytes.subarray(0, bytesRead);
    const known = SIGNATURES.find((s) => s.test(head));
    if (!known && size > 0 && size <= TEXT_MAX_BYTES) {
      const text = decodeText(head);
      if (text !== null) {
        const ext = clientExtension(filename) ?? "txt";
        return { kind: "text", mime: TEXT_MIME, language: languageFor(ext, text), ext };
      }
    }
    if (allowed !== "all") return null;
    const mime = known?.mime ?? "application/octet-stream";
    return {
      kind: "file",
      mime,
      // The client's name wins: a .docx is a ZIP, but its owner wants it back as .docx.
      ext: clientExtension(filename) ?? known?.ext ?? "bin",
      audio: mime.startsWith("audio/"),
      image: EXTRA_IMAGE_MIMES.has(mime),
    };
  } finally {
    await handle.close();
  }
}
