/**
 * What a page served without the React runtime (share-islands.ts) carries inline instead of
 * fetching: the build's style sheet, the islands script and the site icon. On a phone over a
 * slow network each request the page starts before its image has painted shares the
 * connection with that image: in Lighthouse's mobile run the islands script and the icon cost
 * ~150 ms of the image share page's LCP each (issue 29; docs/share-pages.md, "Scripts").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StaticAssets } from "./static-assets";

export interface PageInlines {
  /** The text of one of the build's style sheets by its URL path, or null (it stays linked). */
  stylesheet(href: string): string | null;
  /** public/share-islands.js, or null (it stays a `<script src>`). */
  islandsScript(): string | null;
  /** The SVG of the site icon linked at `href` (`/icon.svg?...`: app/icon.svg), or null. */
  icon(href: string): string | null;
}

/** The icon Next links from app/icon.svg (its query is a content hash). */
const ICON_HREF = /^\/icon\.svg(?:\?|$)/;

/** Inlines read from the app in `root`, each file once and on first use (a missing file inlines nothing). */
export function pageInlines(root: string, assets: StaticAssets | undefined): PageInlines {
  const script = once(() => readFileSync(join(root, "public", "share-islands.js"), "utf8"));
  const icon = once(() => readFileSync(join(root, "app", "icon.svg"), "utf8"));
  return {
    stylesheet: (href) => assets?.stylesheet(href) ?? null,
    islandsScript: script,
    icon: (href) => (ICON_HREF.test(href) ? icon() : null),
  };
}

function once(read: () => string): () => string | null {
  let value: string | null | undefined;
  return () => {
    if (value === undefined) {
      try {
        value = read();
      } catch {
        value = null;
      }
    }
    return value;
  };
}
