/**
 * Pages Next renders and the custom server sends without Next's client runtime: the share pages
 * for visitors (share-islands.ts, docs/share-pages.md "Scripts") and the dashboard's gallery and
 * settings for their owner (dashboard-islands.ts, docs/dashboard-scripts.md). Next renders
 * uncompressed; the HTML is held, rewritten, then compressed here.
 */
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { compressText, pickEncoding, varyWithEncoding } from "./compress";
import type { PageInlines } from "./page-inlines";

const MAX_BYTES = 2 * 1024 * 1024;
/** Style sheets larger than this stay linked (the build's one sheet is ~52 KB). */
const MAX_INLINE_CSS_BYTES = 128 * 1024;
/** Marks a page that must keep Next's runtime (an adaptive video: hls.js attaches after hydration). */
export const NEEDS_RUNTIME = "data-needs-runtime";

/** The page's HTML rewritten, or null to send it as Next wrote it (compressed all the same). */
export type Rewrite = (html: string, nonce: string | undefined) => string | null;

/** Renders through Next with compression off, then writes the page as `rewrite` makes it, compressed. */
export async function serveRewritten(
  req: IncomingMessage,
  res: ServerResponse,
  render: () => Promise<void>,
  rewrite: Rewrite,
): Promise<void> {
  const accepted = req.headers["accept-encoding"];
  // Next's own compression would hand us bytes we cannot rewrite.
  req.headers["accept-encoding"] = "identity";
  hold(res, (status, body) => {
    const type = String(res.getHeader("content-type") ?? "");
    if (status !== 200 || !type.startsWith("text/html") || res.hasHeader("content-encoding") || body.length > MAX_BYTES) return body;
    const html = body.toString("utf8");
    const nonce = /'nonce-([^']+)'/.exec(String(res.getHeader("content-security-policy") ?? ""))?.[1];
    const rewritten = html.includes(NEEDS_RUNTIME) ? null : rewrite(html, nonce);
    if (rewritten !== null) trimPreloads(res, rewritten);
    return encode(req, res, accepted, rewritten === null ? body : Buffer.from(rewritten));
  });
  await render();
}

export interface StripOptions {
  inlines?: PageInlines;
  /** The installable app's pages keep their `<link rel="manifest">`; share pages drop it. */
  keepManifest?: boolean;
  /** Added at the end of `<head>`, after the inlined sheets. */
  head?: string;
  /** Added at the end of `<body>`. */
  body?: string;
}

/**
 * The page without Next's scripts (its chunks, the RSC payload; JSON data blocks stay) and script
 * preloads, with `inlines`' sheets and icon inline and `head`/`body` added.
 */
export function withoutNextScripts(html: string, nonce: string | undefined, options: StripOptions): string {
  const { inlines } = options;
  // Inline sheets go at the end of <head>; a page without one keeps its links.
  const stylesheet = html.includes("</head>") ? inlines?.stylesheet : undefined;
  const styles: string[] = [];
  const stripped = html
    .replace(/<script\b[^>]*\bsrc="[^"]*"[^>]*>\s*<\/script>/g, "")
    .replace(/<script\b(?![^>]*\btype="application\/(?:ld\+)?json")[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<link\b[^>]*>/g, (tag) => {
      if (/\brel="(?:modulepreload|preload)"/.test(tag) && /\bas="script"|\brel="modulepreload"/.test(tag)) return "";
      if (/\brel="icon"/.test(tag)) return inlinedIcon(tag, inlines);
      // The manifest is the dashboard's: fetching it and its icon cost ~0.2 s of the share
      // page's mobile LCP (docs/share-pages.md, "Scripts").
      if (/\brel="manifest"/.test(tag)) return options.keepManifest ? tag : "";
      const style = inlined(tag, nonce, stylesheet);
      if (style === null) return tag;
      styles.push(style);
      return "";
    });
  // Sheets after the OpenGraph tags: unfurlers read only a page's first kilobytes (clients.md).
  const withHead = insertBefore(stripped, "</head>", styles.join("") + (options.head ?? ""), "first");
  return insertBefore(withHead, "</body>", options.body ?? "", "last");
}

/**
 * React's `Link` header preloads (the style sheet, scripts): of a rewritten page, the sheet is
 * inline and Next's scripts are gone, so a browser would fetch them for nothing beside the page's
 * own requests (the dashboard's mobile LCP).
 */
function trimPreloads(res: ServerResponse, html: string): void {
  const header = res.getHeader("link");
  if (header === undefined) return;
  const entries = (Array.isArray(header) ? header.join(", ") : String(header)).split(/,\s*(?=<)/);
  const kept = entries.filter((entry) => {
    if (/;\s*as="?script"?|;\s*rel="?modulepreload"?/.test(entry)) return false;
    const href = /^<([^>]*)>/.exec(entry.trim())?.[1];
    return !(href && /;\s*as="?style"?/.test(entry) && html.includes(`data-href="${href}"`));
  });
  if (kept.length > 0) res.setHeader("link", kept.join(", "));
  else res.removeHeader("link");
}

function insertBefore(html: string, tag: string, text: string, which: "first" | "last"): string {
  if (!text) return html;
  const at = which === "first" ? html.indexOf(tag) : html.lastIndexOf(tag);
  return at === -1 ? (which === "last" ? html + text : html) : `${html.slice(0, at)}${text}${html.slice(at)}`;
}

/** ` nonce="…"`, or nothing. */
export const nonceAttribute = (nonce: string | undefined): string => (nonce ? ` nonce="${nonce}"` : "");

/** A `<link rel="icon">` as a `data:` URL (the CSP's img-src allows data:). */
function inlinedIcon(tag: string, inlines: PageInlines | undefined): string {
  const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
  const dataUrl = href && inlines?.iconDataUrl(href.replaceAll("&amp;", "&"));
  return href && dataUrl ? tag.replace(`href="${href}"`, `href="${dataUrl}"`) : tag;
}

/** A build `<link rel="stylesheet">` as a `<style>` with its text; null when it stays linked. */
function inlined(tag: string, nonce: string | undefined, stylesheet: PageInlines["stylesheet"] | undefined): string | null {
  if (!stylesheet || !/\brel="stylesheet"/.test(tag)) return null;
  const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
  const css = href ? stylesheet(href) : null;
  // A sheet that could close the element early (`</style`) stays linked.
  if (!css || css.length > MAX_INLINE_CSS_BYTES || /<\/style/i.test(css)) return null;
  return `<style${nonceAttribute(nonce)} data-href="${href}">${css}</style>`;
}

function encode(req: IncomingMessage, res: ServerResponse, accepted: string | undefined, body: Buffer): Buffer {
  req.headers["accept-encoding"] = accepted;
  const vary = res.getHeader("vary");
  res.setHeader("vary", varyWithEncoding(vary === undefined ? undefined : String(vary)));
  const encoding = pickEncoding(accepted);
  if (!encoding) return body;
  res.setHeader("content-encoding", encoding);
  return compressText(body, encoding);
}

/** Holds what Next writes until `end`, then writes `finish(status, body)`'s bytes with their length. */
function hold(res: ServerResponse, finish: (status: number, body: Buffer) => Buffer): void {
  const chunks: Buffer[] = [];
  const writeHead = res.writeHead;
  const end = res.end;
  const collect = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === "function") return;
    if (typeof chunk === "string") chunks.push(Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8"));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    this.statusCode = status;
    const headers = rest.find((arg) => typeof arg === "object" && arg !== null) as OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;
    if (headers && !Array.isArray(headers)) {
      for (const [name, value] of Object.entries(headers)) if (value !== undefined) this.setHeader(name, value);
    }
    return this;
  } as ServerResponse["writeHead"];
  res.flushHeaders = () => {};
  res.write = function (this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) {
    collect(chunk, encoding);
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") queueMicrotask(() => (done as () => void)());
    return true;
  } as ServerResponse["write"];
  res.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    collect(chunk, encoding);
    const body = finish(this.statusCode, Buffer.concat(chunks));
    this.removeHeader("transfer-encoding");
    if (this.req?.method !== "HEAD") this.setHeader("content-length", String(body.length));
    writeHead.call(this, this.statusCode);
    const done = typeof chunk === "function" ? chunk : typeof encoding === "function" ? encoding : callback;
    return (end as (this: ServerResponse, chunk: Buffer, callback?: () => void) => ServerResponse).call(
      this,
      body,
      typeof done === "function" ? (done as () => void) : undefined,
    );
  } as ServerResponse["end"];
}
