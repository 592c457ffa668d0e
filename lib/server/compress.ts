/**
 * Compression of the fast lane's text replies (docs/compression.md): Next gzips only what it
 * serves. Brotli at quality 4 (as fast as gzip's default); nothing under MIN_BYTES, so the
 * cached reads' short replies stay byte-identical. A compressible body always says `Vary`.
 */
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

export type Encoding = "br" | "gzip";

export const MIN_BYTES = 1024;

/** Content types worth compressing: JSON and text. Files under /cdn never come here. */
const COMPRESSIBLE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/)/i;

/** Brotli first, then gzip; `q=0` refuses a coding, `*` stands for any the header does not name. */
export function pickEncoding(acceptEncoding: string | string[] | undefined): Encoding | null {
  const header = Array.isArray(acceptEncoding) ? acceptEncoding.join(",") : acceptEncoding;
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.trim().split("=");
      if (key === "q") q = Number(value);
    }
    weights.set(name, Number.isFinite(q) ? q : 0);
  }
  const accepts = (name: Encoding): boolean => {
    const q = weights.get(name) ?? weights.get("*");
    return q !== undefined && q > 0;
  };
  if (accepts("br")) return "br";
  if (accepts("gzip")) return "gzip";
  return null;
}

export function compressible(contentType: string | undefined, byteLength: number): boolean {
  return byteLength >= MIN_BYTES && contentType !== undefined && COMPRESSIBLE.test(contentType);
}

export function compressText(text: string | Buffer, encoding: Encoding): Buffer {
  const input = typeof text === "string" ? Buffer.from(text) : text;
  return encoding === "br"
    ? brotliCompressSync(input, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: input.length },
      })
    : gzipSync(input);
}

/** `vary` with Accept-Encoding added once (it may already name Origin or others). */
export function varyWithEncoding(vary: string | undefined): string {
  if (!vary) return "Accept-Encoding";
  if (/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) return vary;
  return `${vary}, Accept-Encoding`;
}

/** The body and headers for a text reply, compressed when accepted; `head` is changed in place. */
export function encodeTextBody(
  acceptEncoding: string | string[] | undefined,
  head: Record<string, string | string[]>,
  text: string,
): string | Buffer {
  const contentType = head["content-type"];
  const length = Buffer.byteLength(text);
  if (head["content-encoding"] || !compressible(typeof contentType === "string" ? contentType : undefined, length)) {
    head["content-length"] = String(length);
    return text;
  }
  const vary = head.vary;
  head.vary = varyWithEncoding(Array.isArray(vary) ? vary.join(", ") : vary);
  const encoding = pickEncoding(acceptEncoding);
  if (!encoding) {
    head["content-length"] = String(length);
    return text;
  }
  const body = compressText(text, encoding);
  head["content-encoding"] = encoding;
  head["content-length"] = String(body.length);
  return body;
}
