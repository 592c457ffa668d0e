/**
 * Which user agents are robots (lib/web/robots.ts, docs/share-pages.md "Robots"): they count
 * no share-page views and may be answered from the page cache. The unfurlers share pages are
 * written for must stay detected whatever the upstream list does; browsers must not be.
 */
import { describe, expect, it } from "vitest";
import { isRobot } from "@/lib/web/robots";

const ROBOTS = [
  "Discordbot/2.0",
  "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
  "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  "Slackbot 1.0 (+https://api.slack.com/robots)",
  "TelegramBot (like TwitterBot)",
  "Twitterbot/1.0",
  "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
  // iMessage's link preview.
  "facebookexternalhit/1.1 Facebot Twitterbot/1.0",
  "WhatsApp/2.23.20.0",
  "Mastodon/4.3.0 (http.rb/5.2.0; +https://example.social/)",
  "Synapse (bot; +https://github.com/matrix-org/synapse)",
  "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  "curl/8.5.0",
  "python-requests/2.31.0",
  "Go-http-client/1.1",
  "node",
  "undici",
  "axios/1.6.0",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0 Safari/537.36",
];

const PEOPLE = [
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
  "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
  "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
];

describe("isRobot", () => {
  it.each(ROBOTS)("detects %s", (agent) => {
    expect(isRobot(agent)).toBe(true);
  });

  it.each(PEOPLE)("lets a person through: %s", (agent) => {
    expect(isRobot(agent)).toBe(false);
  });

  it("a request without a user agent is a robot", () => {
    expect(isRobot(null)).toBe(true);
    expect(isRobot(undefined)).toBe(true);
    expect(isRobot("")).toBe(true);
  });
});
