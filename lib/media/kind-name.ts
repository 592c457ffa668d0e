/** What a refused file is, in words ("an AVIF image"), from its first bytes: a refusal should say why. */
import { open } from "node:fs/promises";

const HEAD_BYTES = 4096;

const ascii = (b: Buffer, start: number, end: number): string => b.toString("latin1", start, Math.min(end, b.length));

/** ISO base media brands (the `ftyp` box) that are no upload type. */
function isoBrandKind(brand: string): string | null {
  if (/^M4[AB] $/.test(brand)) return "an audio-only M4A";
  if (/^M4P $/.test(brand)) return "a protected M4P audio file";
  if (/^avi[fs]$/.test(brand)) return "an AVIF image";
  if (/^(hei[cxms]|hev[cxms]|mif1|msf1)$/.test(brand)) return "a HEIC/HEIF image";
  if (/^3g[p2]/.test(brand)) return "a 3GP video";
  if (/^(crx |jp2 |jpx )$/.test(brand)) return brand === "crx " ? "a Canon raw photo (CR3)" : "a JPEG 2000 image";
  return null;
}

const SIGNATURES: ReadonlyArray<{ test: (b: Buffer) => boolean; name: string }> = [
  { test: (b) => ascii(b, 0, 5) === "%PDF-", name: "a PDF document" },
  { test: (b) => ascii(b, 0, 4) === "PK\x03\x04", name: "a ZIP archive (or an Office document)" },
  { test: (b) => b[0] === 0x1f && b[1] === 0x8b, name: "a gzip archive" },
  { test: (b) => ascii(b, 0, 6) === "7z\xbc\xaf\x27\x1c", name: "a 7-Zip archive" },
  { test: (b) => ascii(b, 0, 4) === "Rar!", name: "a RAR archive" },
  { test: (b) => ascii(b, 0, 4) === "fLaC", name: "a FLAC audio file" },
  { test: (b) => ascii(b, 0, 4) === "OggS", name: "an Ogg audio or video file" },
  { test: (b) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "WAVE", name: "a WAV audio file" },
  { test: (b) => ascii(b, 0, 4) === "RIFF" && ascii(b, 8, 12) === "AVI ", name: "an AVI video" },
  { test: (b) => ascii(b, 0, 3) === "ID3" || (b[0] === 0xff && ((b[1] ?? 0) & 0xe6) === 0xe2), name: "an MP3 audio file" },
  { test: (b) => ascii(b, 0, 3) === "FLV", name: "an FLV video" },
  { test: (b) => b.length >= 4 && b.readUInt32BE(0) === 0x3026b275, name: "a WMV/ASF video" },
  { test: (b) => b[0] === 0x47 && b[188] === 0x47 && b[376] === 0x47, name: "an MPEG transport stream (.ts)" },
  { test: (b) => ascii(b, 0, 4) === "II*\0" || ascii(b, 0, 4) === "MM\0*", name: "a TIFF image (or a camera raw photo)" },
  { test: (b) => ascii(b, 0, 2) === "BM" && b.length >= 14, name: "a BMP image" },
  { test: (b) => b.length >= 4 && b.readUInt32BE(0) === 0x00000100, name: "an ICO icon" },
  { test: (b) => ascii(b, 0, 4) === "8BPS", name: "a Photoshop (PSD) image" },
  { test: (b) => ascii(b, 0, 2) === "MZ", name: "a Windows program" },
  { test: (b) => ascii(b, 0, 4) === "\x7fELF", name: "a Linux program" },
];

/** Words for text: an SVG drawing, an HTML page, or plain text. */
function textKind(head: Buffer): string | null {
  if (head.includes(0)) return null;
  let text: string;
  try {
    // The head may end inside a character: only that last one may be cut.
    text = new TextDecoder("utf-8", { fatal: true }).decode(head.length === HEAD_BYTES ? head.subarray(0, HEAD_BYTES - 4) : head);
  } catch {
    return null;
  }
  const start = text.trimStart().slice(0, 512).toLowerCase();
  if (/<svg[\s>]/.test(start) || (start.startsWith("<?xml") && start.includes("<svg"))) return "an SVG image";
  if (start.startsWith("<!doctype html") || start.startsWith("<html")) return "an HTML page";
  return text.length ? "a text file" : null;
}

export function kindFromHead(head: Buffer): string | null {
  if (ascii(head, 4, 8) === "ftyp") {
    const brand = isoBrandKind(ascii(head, 8, 12));
    if (brand) return brand;
  }
  return SIGNATURES.find((s) => s.test(head))?.name ?? textKind(head);
}

/** The words for the file at `path`: "an AVIF image", or "a file of a type this server does not recognise". */
export async function describeFileKind(path: string): Promise<string> {
  const handle = await open(path, "r");
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEAD_BYTES, 0);
    if (bytesRead === 0) return "an empty file";
    return kindFromHead(head.subarray(0, bytesRead)) ?? "a file of a type this server does not recognise";
  } finally {
    await handle.close();
  }
}
