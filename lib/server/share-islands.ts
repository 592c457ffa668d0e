/**
 * Share pages, discover and profiles without the React runtime for visitors who are not
 * signed in (issue 29, docs/share-pages.md, "Scripts").
 *
 * A share page is server-rendered whole; for a visitor without a session its only
 * interactive parts are the copy buttons (like, comments and report need a session). Yet
 * Next sends every page its client runtime, React and the router: ~140 KB compressed, more
 * than the 1280 px photo itself on a phone, parsed and run before the page is idle. So for
 * such a request the page is rendered by Next as usual, uncompressed, and rewritten here:
 * Next's scripts, script preloads and the inline RSC payload are taken out, and one small
 * static script (public/share-islands.js) runs the copy buttons, with the response's CSP
 * nonce. Links, forms (a password form posts as a plain form: server actions work without
 * script) and the wrap toggle of a text need no script. A page that marks an element
 * `data-needs-runtime` (a video with an adaptive stream: hls.js attaches it after
 * hydration) is sent as Next wrote it. Either way the HTML is compressed here.
 *
 * The rewritten page also carries its style sheet inline (`<style>` with the nonce) instead of
 * linking it: the sheet blocked the first paint behind a second round trip, which the page's
 * largest image, already in flight, did not need (issue 29: the image share page's LCP against
 * a static page's). Compressed with the page it adds ~8 KB. The islands script and the site
 * icon come inline too (page-inlines.ts), and the web app's manifest link is dropped: each
 * was a request beside the image before it painted.
 */
import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { compressText, pickEncoding, varyWithEncoding } from "./compress";
import type { PageInlines } from "./page-inlines";

/**
 * A share page (a share code: lib/posts/codes.ts), discover and the GIF search, a profile:
 * pages whose only client code is for signed-in visitors (like, comment, follow, report) and
 * the copy buttons. Other pages (the sign-in form, the dashboard) need React.
 */
const PAGE_PATH = /^\/(?:p\/[A-Za-z0-9]{4,64}|discover(?:\/gifs)?|u\/[^/?]+)(?:\?|$)/;
/** next-auth's session cookie (`__Secure-` prefixed on https). */
const SESSION_COOKIE = /(?:^|;\s*)(?:__Secure-)?next-auth\.session-token(?:\.\d+)?=/;
/** Served from public/ (immutable content, its URL never changes: cached for an hour). */
export const ISLANDS_SCRIPT = "/share-islands.js";
/** Pages larger than this are sent as rendered (a share page is ~20 KB). */
const MAX_BYTES = 2 * 1024 * 1024;
/** Style sheets larger than this stay linked (the build's one sheet is ~52 KB, ~8 KB compressed). */
const MAX_INLINE_CSS_BYTES = 128 * 1024;

/** Whether this request's page is served without Next's client runtime. */
export function servesWithoutRuntime(req: IncomingMessage): boolean {
  if (req.method !== "GET" || !PAGE_PATH.test(req.url ?? "")) return false;
  const h = req.headers;
  if (h.rsc || h["next-router-prefetch"] || h["next-router-state-tree"] || h["next-action"]) return false;
  return !SESSION_COOKIE.test(h.cookie ?? "");
}

/**
 * Renders through `render` (Next) with compression off, holds the page, and writes it
 * rewritten (see above) and compressed for the encodings the client accepts.
 */
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

/**
 * The page without Next's scripts, with the islands script and, for what `inlines` gives the
 * text of, its style sheets, the islands script and the icon inline. Exported for its unit test.
 */
export function withoutRuntime(html: string, nonce: string | undefined, inlines?: PageInlines): string {
  // Inline sheets go at the end of <head>; a page without one keeps its links.
  const stylesheet = html.includes("</head>") ? inlines?.stylesheet : undefined;
  const styles: string[] = [];
  const stripped = html
    // Script files (the runtime, the page's chunks, the nomodule polyfills).
    .replace(/<script\b[^>]*\bsrc="[^"]*"[^>]*>\s*<\/script>/g, "")
    // Inline scripts: the RSC payload and Next's bootstrap; structured data stays.
    .replace(/<script\b(?![^>]*\btype="application\/ld\+json")[^>]*>[\s\S]*?<\/script>/g, "")
    // Preloads of scripts the page no longer runs; style sheets taken out to go inline.
    .replace(/<link\b[^>]*>/g, (tag) => {
      if (/\brel="(?:modulepreload|preload)"/.test(tag) && /\bas="script"|\brel="modulepreload"/.test(tag)) return "";
      if (/\brel="icon"/.test(tag)) return inlinedIcon(tag, inlines);
      // The web app's manifest is the dashboard's (start_url /dashboard, docs/share-target.md):
      // a visitor of someone's post has nothing to install, yet the browser fetched the
      // manifest and its 192 px icon while the post's image was loading (~0.2 s of the image
      // share page's mobile LCP in Lighthouse; docs/share-pages.md, "Scripts").
      if (/\brel="manifest"/.test(tag)) return "";
      const style = inlined(tag, nonce, stylesheet);
      if (style === null) return tag;
      styles.push(style);
      return "";
    });
  // The sheets go at the end of <head>, after the title and the OpenGraph tags: link
  // unfurlers read a page's first kilobytes, and ~50 KB of CSS in front would push the tags
  // out of that (clients.md). The first paint waits for the same CSS either way.
  const head = stripped.indexOf("</head>");
  const withStyles = head === -1 ? stripped : `${stripped.slice(0, head)}${styles.join("")}${stripped.slice(head)}`;
  const script = islandsScript(nonce, inlines);
  const end = withStyles.lastIndexOf("</body>");
  return end === -1 ? withStyles + script : `${withStyles.slice(0, end)}${script}${withStyles.slice(end)}`;
}

/** The islands script, inline when its text is known, else by its URL. */
function islandsScript(nonce: string | undefined, inlines: PageInlines | undefined): string {
  const attribute = nonce ? ` nonce="${nonce}"` : "";
  const text = inlines?.islandsScript();
  return text ? `<script${attribute}>${text}</script>` : `<script src="${ISLANDS_SCRIPT}" async${attribute}></script>`;
}

/** A `<link rel="icon">` with the icon as a `data:` URL (the CSP's img-src allows data:), else as it was. */
function inlinedIcon(tag: string, inlines: PageInlines | undefined): string {
  const href = /\bhref="([^"]+)"/.exec(tag)?.[1];
  const dataUrl = href && inlines?.iconDataUrl(href.replaceAll("&amp;", "&"));
  return href && dataUrl ? tag.replace(`href="${href}"`, `href="${dataUrl}"`) : tag;
}

/** A `<link rel="stylesheet">` of the build as a `<style>` with its text; null for any other tag, or a sheet that stays linked. */
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

/**
 * Holds the head and body Next writes until `end`, then writes `finish(status, body)`'s
 * bytes with their length. Headers passed to writeHead are kept on the response so that
 * `finish` can read and change them.
 */
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
