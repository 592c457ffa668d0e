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
  /** public/share-islands.js, safe inside a `<script>` element; null: it stays a `<script src>`. */
  islandsScript(): string | null;
  /** The site icon linked at `href` (`/icon.svg?...`: app/icon.svg) as a `data:` URL, or null (it stays linked). */
  iconDataUrl(href: string): string | null;
}

/** The icon Next links from app/icon.svg (its query is a content hash). */
const ICON_HREF = /^\/icon\.svg(?:\?|$)/;

/**
 * Inlines read from the app in `root`, each file once on first use and made ready to paste
 * then, not per page: a missing file, or a script that could close its element early, inlines nothing.
 */
export function pageInlines(root: string, assets: StaticAssets | undefined): PageInlines {
  const script = once(() => {
    const text = readFileSync(join(root, "public", "share-islands.js"), "utf8");
    return /<\/script/i.test(text) ? null : text;
  });
  const icon = once(() => `data:image/svg+xml,${encodeURIComponent(readFileSync(join(root, "app", "icon.svg"), "utf8"))}`);
  return {
    stylesheet: (href) => assets?.stylesheet(href) ?? null,
    islandsScript: script,
    iconDataUrl: (href) => (ICON_HREF.test(href) ? icon() : null),
  };
}

function once(make: () => string | null): () => string | null {
  let value: string | null | undefined;
  return () => {
    if (value === undefined) {
      try {
        value = make();
      } catch {
        value = null;
      }
    }
    return value;
  };
}
