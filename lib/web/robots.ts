/**
 * Link unfurlers, search engines and other robots. They do not count views (a link pasted
 * into a busy channel would otherwise be "viewed" by every chat service's fetcher), and
 * the share pages they fetch may be answered from memory (lib/server/page-cache.ts).
 *
 * The list is `isbot`'s, maintained upstream as new fetchers appear (docs/share-pages.md,
 * "Robots"), rather than a pattern of our own that ages. A request without a user agent
 * is a script, not a person: a robot here too.
 */
import { isbot } from "isbot";

export function isRobot(userAgent: string | null | undefined): boolean {
  return !userAgent || isbot(userAgent);
}
