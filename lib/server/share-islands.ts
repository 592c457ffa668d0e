/**
 * Share pages, discover and profiles without the React runtime for visitors not signed in
 * (docs/share-pages.md, "Scripts"): Next's scripts and RSC payload are cut, one small islands
 * script runs the copy buttons, and the style sheet goes inline (it blocked first paint behind
 * a second round trip). A page marking `data-needs-runtime` is sent as Next wrote it
 * (page-rewrite.ts, which the dashboard's islands share).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { PageInlines } from "./page-inlines";
import { nonceAttribute, serveRewritten, withoutNextScripts } from "./page-rewrite";
import { isNextDataRequest, SESSION_COOKIE } from "./page-requests";

/** Pages whose only client code is for signed-in visitors and the copy buttons; the sign-in form and dashboard need React. */
const PAGE_PATH = /^\/(?:p\/[A-Za-z0-9]{4,64}|discover(?:\/gifs)?|u\/[^/?]+)(?:\?|$)/;
/** Served from public/ (immutable content, its URL never changes: cached for an hour). */
export const ISLANDS_SCRIPT = "/share-islands.js";

export function servesWithoutRuntime(req: IncomingMessage): boolean {
  if (req.method !== "GET" || !PAGE_PATH.test(req.url ?? "")) return false;
  return !isNextDataRequest(req) && !SESSION_COOKIE.test(req.headers.cookie ?? "");
}

/** Renders through Next with compression off, then writes the page rewritten and compressed. */
export function serveWithoutRuntime(
  req: IncomingMessage,
  res: ServerResponse,
  render: () => Promise<void>,
  inlines?: PageInlines,
): Promise<void> {
  return serveRewritten(req, res, render, (html, nonce) => withoutRuntime(html, nonce, inlines));
}

/** The page without Next's scripts, with `inlines`' sheets, islands script and icon inline. Exported for its unit test. */
export function withoutRuntime(html: string, nonce: string | undefined, inlines?: PageInlines): string {
  return withoutNextScripts(html, nonce, { inlines, body: islandsScript(nonce, inlines) });
}

function islandsScript(nonce: string | undefined, inlines: PageInlines | undefined): string {
  const text = inlines?.islandsScript();
  return text
    ? `<script${nonceAttribute(nonce)}>${text}</script>`
    : `<script src="${ISLANDS_SCRIPT}" async${nonceAttribute(nonce)}></script>`;
}
