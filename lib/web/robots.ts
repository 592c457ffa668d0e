/**
 * Link unfurlers, search engines and other robots. They do not count views (a link pasted
 * into a busy channel would otherwise be "viewed" by every chat service's fetcher), and
 * the share pages they fetch may be answered from memory (lib/server/page-cache.ts).
 */
const ROBOT_UA =
  /bot|crawl|spider|slurp|preview|fetch|scrape|facebookexternalhit|facebot|embedly|quora link|whatsapp|vkshare|w3c_validator|curl|wget|python|go-http|okhttp|node|undici|axios|headless|lighthouse/i;

export function isRobot(userAgent: string | null | undefined): boolean {
  return !userAgent || ROBOT_UA.test(userAgent);
}
