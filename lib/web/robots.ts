/**
 * Robots count no views and may get share pages from memory. The list is `isbot`'s, maintained
 * upstream (docs/share-pages.md, "Robots"); no user agent is a script, so a robot too.
 */
import { isbot } from "isbot";

export function isRobot(userAgent: string | null | undefined): boolean {
  return !userAgent || isbot(userAgent);
}
