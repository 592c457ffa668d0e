/**
 * Share pages, discover and profiles without the React runtime for visitors not signed in
 * (docs/share-pages.md, "Scripts"): Next's scripts and RSC payload are cut, one small islands
 * script runs the copy buttons, and the style sheet goes inline (it blocked first paint behind
 * a second round trip). A page marking `data-needs-runtime` is sent as Next wrote it.
 */
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { compressText, pickEncoding, varyWithEncoding } from "./compress";
import type { PageInlines } from "./page-inlines";

/** Pages whose only client code is for signed-in visitors and the copy buttons; the sign-in form and dashboard need React. */
const PAGE_PATH = /^\/(?:p\/[A-Za-z0-9]{4,64}|discover(?:\/gifs)?|u\/[^/?]+)(?:\?|$)/;
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?next-auth\.session-token(?:\.\d+)?=/;
/** Served from public/ (immutable content, its URL never changes: cached for an hour). */
export const ISLANDS_SCRIPT = "/share-islands.js";
const MAX_BYTES = 2 * 1024 * 1024;
/** Style sheets larger than this stay linked (the build's one sheet is ~52 KB). */
const MAX_INLINE_CSS_BYTES = 128 * 1024;

export function servesWithoutRuntime(req: IncomingMessage): boolean {
  if (req.method !== "GET" || !PAGE_PATH.test(req.url ?? "")) return false;
  const h = req.headers;
  if (h.rsc || h["next-router-prefetch"] || h["next-router-state-tree"] || h["next-action"]) return false;
  return !SESSION_COOKIE.test(h.cookie ?? "");
}

/** Renders through Next with compression off, then writes the page rewritten and compressed. */
export async function serveWithoutRuntime(
  req: IncomingMessage,
  res: ServerResponse,
  render: () => Promise<void>,
  inlines?: PageInlines,
): Promise<void> {
  const accepted = req.headers["accept-encoding"];
  // Next's own compression would hand us bytes we cannot rewrite.
  req.headers["accept-encoding"] = "identity";
  hold(res, (status, body) => {
    const type = String(res.getHeader("content-type") ?? "");
    if (status !== 200 || !type.startsWith("text/html") || res.hasHeader("content-encoding") || body.length > MAX_BYTES) return body;
    const html = body.toString("utf8");
    if (html.includes("data-needs-runtime")) return encode(req, res, accepted, body);
    const nonce = /'nonce-([^']+)'/.exec(String(res.getHeader("content-security-policy") ?? ""))?.[1];
    return encode(req, res, accepted, Buffer.from(withoutRuntime(html, nonce, inlines)));
  });
  await render();
}

/** The page without Next's scripts, with `inlines`' sheets, islands script and icon inline. Exported for its unit test. */
export function withoutRuntime(html: string, nonce: string | undefined, inlines?: PageInlines): string {
  // Inline sheets go at the end of <head>; a page without one keeps its links.
  const stylesheet = html.includes("</head>") ? inlines?.stylesheet : undefined;
  const styles: string[] = [];
  const stripped = html
    .replace(/<script\b[^>]*\bsrc="[^"]*"[^>]*>\s*<\/script>/g, "")
    .replace(/<script\b(?![^>]*\btype="application\/ld\+json")[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<link\b[^>]*>/g, (tag) => {
      if (/\brel="(?:modulepreload|preload)"/.test(tag) && /\bas="script"|\brel="modulepreload"/.test(tag)) return "";
      if (/\brel="icon"/.test(tag)) return inlinedIcon(tag, inlines);
      // The manifest is the dashboard's: fetching it and its icon cost ~0.2 s of the share
      // page's mobile LCP (docs/share-pages.md, "Scripts").
      if (/\brel="manifest"/.test(tag)) return "";
      const style = inlined(tag, nonce, stylesheet);
      if (style === null) return tag;
      styles.push(style);
      return "";
    });
  // Sheets after the OpenGraph tags: unfurlers read only a page's first kilobytes (clients.md).
  const head = stripped.indexOf("</head>");
  const withStyles = head === -1 ? stripped : `${stripped.slice(0, head)}${styles.join("")}${stripped.slice(head)}`;
  const script = islandsScript(nonce, inlines);
  const end = withStyles.lastIndexOf("</body>");
  return end === -1 ? withStyles + script : `${withStyles.slice(0, end)}${script}${withStyles.slice(end)}`;
}

function islandsScript(nonce: string | undefined, inlines: PageInlines | undefined): string {
  const attribute = nonce ? ` nonce="${nonce}"` : "";
  const text = inlines?.islandsScript();
  return text ? `<script${attribute}>${text}</script>` : `<script src="${ISLANDS_SCRIPT}" async${attribute}></script>`;
}

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
  return `<style${nonce ? ` nonce="${nonce}"` : ""} data-href="${href}">${css}</style>`;
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
