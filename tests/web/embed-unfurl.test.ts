/**
 * Styled embeds as each crawler reads them, on the real server (docs/embeds.md,
 * notes/clients.md "Link unfurling"): Discord, Slack, Telegram, Twitter/X, iMessage and
 * Mastodon fetch the share page and find the account's title, description, site name and
 * colour in <head>; Discord and Slack also read the author line from oEmbed. An account
 * with no style (and no operator template) unfurls exactly as before, and a styled value
 * cannot break out of its attribute.
 */
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture } from "../support/media";
import { startTestServer, type TestServer } from "../support/server";
import { serverApp, serverSession, serverSetting, serverUser } from "../support/server-accounts";

const CRAWLERS: Record<string, string> = {
  Discord: "Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
  Slack: "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
  Telegram: "TelegramBot (like TwitterBot)",
  "Twitter/X": "Twitterbot/1.0",
  iMessage: "facebookexternalhit/1.1 Facebot Twitterbot/1.0",
  Mastodon: "Mastodon/4.3.0 (http.rb/5.2.0; +https://example.social/)",
};

/** The <head>'s meta tags by property or name (attribute values unescaped as a parser would). */
function headTags(html: string): { meta: Map<string, string>; title: string } {
  const head = html.slice(0, html.indexOf("</head>"));
  const decode = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&amp;/g, "&");
  const meta = new Map<string, string>();
  for (const tag of head.match(/<meta [^>]*>/g) ?? []) {
    const key = /(?:property|name)="([^"]+)"/.exec(tag)?.[1];
    const content = /content="([^"]*)"/.exec(tag)?.[1];
    if (key && content !== undefined && !meta.has(key)) meta.set(key, decode(content));
  }
  return { meta, title: decode(/<title>([^<]*)<\/title>/.exec(head)?.[1] ?? "") };
}

describe("styled embeds, as crawlers read them", () => {
  let server: TestServer;
  let styled: { code: string; url: string };
  let plain: { code: string; url: string };
  let png: Buffer;

  async function uploadAs(user: string): Promise<{ code: string; url: string }> {
    const { key } = await serverApp(server, user, "tool");
    const body = new FormData();
    body.append("file", new Blob([new Uint8Array(png)], { type: "image/png" }), "beach.png");
    const res = await fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, "post-privacy": "unlisted" }, body });
    const reply = (await res.json()) as { post: { code: string; url: string } };
    expect(res.status, JSON.stringify(reply)).toBe(200);
    return reply.post;
  }

  beforeAll(async () => {
    png = await readFile(await fixture("pngPlain"));
    server = await startTestServer();
    await serverUser(server, "ana");
    await serverUser(server, "bob");
    styled = await uploadAs("ana");
    plain = await uploadAs("bob");
    const { key } = await serverSession(server, "ana");
    const res = await fetch(`${server.url}/relay/users/@me/embed`, {
      method: "PUT",
      headers: { "relay-key": key, "content-type": "application/json" },
      body: JSON.stringify({
        title: "{file.name} — {file.size}",
        description: 'Seen {post.views} times since {post.date} "quoted" <b>bold</b>',
        site_name: "Ana's shots",
        author: "Shot by {user.name}",
        color: "#FF8800",
      }),
    });
    expect(res.status, await res.text()).toBe(200);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const page = async (code: string, agent: string) => {
    const res = await fetch(`${server.url}/p/${code}`, { headers: { "user-agent": agent } });
    expect(res.status).toBe(200);
    return headTags(await res.text());
  };

  for (const [crawler, agent] of Object.entries(CRAWLERS)) {
    it(`${crawler} reads the styled title, description, site name and colour`, async () => {
      const { meta, title } = await page(styled.code, agent);
      const today = new Date().toISOString().slice(0, 10);
      const description = `Seen 0 times since ${today} "quoted" <b>bold</b>`;
      expect(meta.get("og:title")).toMatch(/^beach\.png — \d+(\.\d)? (B|KB)$/);
      expect(title).toBe(`${meta.get("og:title")} · Ana's shots`);
      expect(meta.get("twitter:title")).toBe(meta.get("og:title"));
      expect(meta.get("og:description")).toBe(description);
      expect(meta.get("twitter:description")).toBe(description);
      expect(meta.get("description")).toBe(description);
      expect(meta.get("og:site_name")).toBe("Ana's shots");
      expect(meta.get("theme-color")).toBe("#ff8800");
      // The media tags are untouched by styling.
      expect(meta.get("og:image")).toMatch(/\/cdn\//);
    });
  }

  it("keeps a styled value inside its attribute", async () => {
    const res = await fetch(`${server.url}/p/${styled.code}`, { headers: { "user-agent": CRAWLERS.Discord } });
    const html = await res.text();
    expect(html).not.toContain("<b>bold</b>");
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt;");
  });

  it("gives Discord and Slack the author line and site name through oEmbed", async () => {
    const res = await fetch(`${server.url}/oembed?url=${encodeURIComponent(styled.url)}&format=json`, {
      headers: { "user-agent": CRAWLERS.Slack },
    });
    expect(await res.json()).toMatchObject({
      title: expect.stringMatching(/^beach\.png — /),
      author_name: "Shot by ana",
      provider_name: "Ana's shots",
    });
  });

  it("unfurls an account without a style exactly as before", async () => {
    for (const agent of Object.values(CRAWLERS)) {
      const { meta, title } = await page(plain.code, agent);
      expect(title).toBe("beach.png · Mediahost");
      expect(meta.get("og:title")).toBe("beach.png");
      expect(meta.get("og:description")).toBe("An image by bob");
      expect(meta.get("og:site_name")).toBe("Mediahost");
      expect(meta.get("theme-color")).toBe("#3552e3");
    }
    const oembed = await (await fetch(`${server.url}/oembed?url=${encodeURIComponent(plain.url)}`)).json();
    expect(oembed).toMatchObject({ title: "beach.png", author_name: "bob", provider_name: "Mediahost" });
  });

  it("applies the operator's template to accounts without one, never over an account's", async () => {
    await serverSetting(server, "EMBED_DESCRIPTION", "{file.type} from {user.name}");
    try {
      // Settings reach the server through its settings sync; wait for the page to show it.
      await expect
        .poll(async () => (await page(plain.code, CRAWLERS.Telegram)).meta.get("og:description"), { timeout: 15_000 })
        .toBe("image/png from bob");
      expect((await page(styled.code, CRAWLERS.Telegram)).meta.get("og:description")).toMatch(/^Seen 0 times/);
    } finally {
      await serverSetting(server, "EMBED_DESCRIPTION", null);
    }
  });
});
