/** GET /oembed (app/oembed/route.ts → lib/web/oembed.ts) on real posts in a real database. */
import { beforeAll, describe, expect, it } from "vitest";
import { GET } from "@/app/oembed/route";
import { env } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { codeFromShareUrl } from "@/lib/web/oembed";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";

useTestDatabase();

let owner: TestUser;

async function oembed(params: Record<string, string>): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await GET(new Request(`http://localhost/oembed?${new URLSearchParams(params)}`));
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

const shareUrl = (code: string) => `${env().shareUrl}/${code}`;

beforeAll(async () => {
  owner = await createTestUser();
});

describe("GET /oembed", () => {
  it("describes an image post as a photo", async () => {
    const { code } = await createTestPost(owner.id, { title: "<b>Cat</b>" });
    const { status, body, headers } = await oembed({ url: shareUrl(code), format: "json" });
    expect(status).toBe(200);
    expect(headers.get("content-type")).toContain("application/json");
    expect(body).toMatchObject({
      version: "1.0",
      type: "photo",
      title: "<b>Cat</b>",
      author_name: owner.username,
      author_url: `${env().PUBLIC_URL}/u/${owner.username}`,
      provider_name: "Mediahost",
      provider_url: env().PUBLIC_URL,
      width: 10,
      height: 10,
    });
    expect(String(body.url)).toMatch(new RegExp(`/cdn/${code}/file0\\.png$`));
  });

  it("describes a video post as a video with an escaped HTML5 player, and honours maxwidth", async () => {
    const { id, code } = await createTestPost(owner.id, { mimeType: "video/mp4", title: 'Clip "1"' });
    await db().file.updateMany({ where: { postId: id }, data: { width: 1280, height: 720 } });
    const { status, body } = await oembed({ url: shareUrl(code), maxwidth: "640" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ type: "video", width: 640, height: 360 });
    expect(String(body.html)).toMatch(
      /^<video src="[^"<>]+\/cdn\/[^"]+\.mp4" width="640" height="360" controls playsinline preload="metadata"><\/video>$/,
    );
  });

  it("answers 404 for private, moderated and unknown posts and foreign URLs", async () => {
    const hidden = await createTestPost(owner.id, { privacy: "private" });
    const moderated = await createTestPost(owner.id, { moderated: true });
    for (const url of [shareUrl(hidden.code), shareUrl(moderated.code), shareUrl("NoSuchCode1"), "https://example.com/some/page"]) {
      const { status } = await oembed({ url });
      expect(status, url).toBe(404);
    }
  });

  it("refuses a missing url (400) and formats other than JSON (501)", async () => {
    expect((await oembed({})).status).toBe(400);
    const { code } = await createTestPost(owner.id);
    expect((await oembed({ url: shareUrl(code), format: "xml" })).status).toBe(501);
  });

  it("accepts the link-domain form of a share URL, for that domain's owner only", async () => {
    await db().user.update({ where: { id: owner.id }, data: { linkDomain: "i.example.org", linkDomainVerifiedAt: new Date() } });
    const { code } = await createTestPost(owner.id);
    expect(codeFromShareUrl(`https://i.example.org/${code}`)).toEqual({ code, linkDomain: "i.example.org" });
    expect((await oembed({ url: `https://i.example.org/${code}` })).status).toBe(200);
    expect((await oembed({ url: `https://elsewhere.example.org/${code}` })).status).toBe(404);
  });
});
