/**
 * The dashboard's gallery and settings without Next's client runtime on a full load by their
 * owner (docs/dashboard-scripts.md): Next renders the page, its scripts, RSC payload and script
 * preloads are cut (page-rewrite.ts, as for share pages), and the island's own module scripts
 * from the build's manifest (islands-build.ts) go in `<head>` with the nonce. The page's
 * `<div data-island>` says which island it is; a page without one, a build without the
 * manifest or an island missing from it is sent as Next wrote it.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ISLAND_ATTRIBUTE, ISLAND_NAMES, type IslandName } from "@/components/dashboard/islands/names";
import type { IslandsManifest } from "./islands-build";
import type { PageInlines } from "./page-inlines";
import { nonceAttribute, serveRewritten, withoutNextScripts } from "./page-rewrite";
import { isNextDataRequest, SESSION_COOKIE } from "./page-requests";

/** The pages with an island (app/dashboard/(main)/page.tsx and settings/page.tsx). */
const PAGE_PATH = /^\/dashboard(?:\/settings)?\/?(?:\?|$)/;
const ISLAND = new RegExp(`\\s${ISLAND_ATTRIBUTE}="([a-z-]+)"`, "g");

/** A signed-in browser's full load of a page with an island; everything else keeps Next's path. */
export function servesDashboardIslands(req: IncomingMessage): boolean {
  if (req.method !== "GET" || !PAGE_PATH.test(req.url ?? "")) return false;
  return !isNextDataRequest(req) && SESSION_COOKIE.test(req.headers.cookie ?? "");
}

/** Renders through Next with compression off, then writes the page with the island's scripts, compressed. */
export function serveDashboardIslands(
  req: IncomingMessage,
  res: ServerResponse,
  render: () => Promise<void>,
  manifest: IslandsManifest | null,
  inlines?: PageInlines,
): Promise<void> {
  return serveRewritten(req, res, render, (html, nonce) => withIslands(html, nonce, manifest, inlines));
}

/** The page with the island's scripts instead of Next's, or null when it has no island the manifest knows. Exported for its unit test. */
export function withIslands(
  html: string,
  nonce: string | undefined,
  manifest: IslandsManifest | null,
  inlines?: PageInlines,
): string | null {
  const names = [...html.matchAll(ISLAND)].map((m) => m[1]);
  // One island per page: its bundle is the page's client code.
  if (names.length !== 1 || !ISLAND_NAMES.includes(names[0] as IslandName)) return null;
  const scripts = manifest?.[names[0] as IslandName];
  if (!scripts?.length || !html.includes("</head>")) return null;
  const head = scripts.map((src) => `<script type="module" src="${src}"${nonceAttribute(nonce)}></script>`).join("");
  return withoutNextScripts(html, nonce, { inlines, keepManifest: true, head });
}
