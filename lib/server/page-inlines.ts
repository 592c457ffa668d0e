/**
 * What a page served without the React runtime carries inline: each extra request shared the
 * phone's connection with the image, ~150 ms of LCP each (docs/share-pages.md, "Scripts").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { StaticAssets } from "./static-assets";

export interface PageInlines {
  stylesheet(href: string): string | null;
  islandsScript(): string | null;
  iconDataUrl(href: string): string | null;
}

/** The icon Next links from app/icon.svg (its query is a content hash). */
const ICON_HREF = /^\/icon\.svg(?:\?|$)/;

/** Each file read once on first use; a missing file, or a script that could close its element early, inlines nothing. */
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
