/**
 * Who sees a share page (lib/web/share.ts, the data behind /p/{code}): public and unlisted
 * for everyone; private for the owner and the access list only (404 for the rest);
 * moderated a notice for others; unknown codes 404; a custom link domain only shows its
 * owner's posts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { loadSharePost } from "@/lib/web/share";
import { isRobot } from "@/lib/web/robots";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";

useTestDatabase();

let owner: TestUser;
let friend: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  owner = await createTestUser();
  friend = await createTestUser();
  stranger = await createTestUser();
  await db().user.update({ where: { id: owner.id }, data: { linkDomain: "links.example.com", linkDomainVerifiedAt: new Date() } });
});

describe("share page visibility", () => {
  it("shows public and unlisted posts to everyone, with unsigned file URLs", async () => {
    for (const privacy of ["public", "unlisted"] as const) {
      const { code } = await createTestPost(owner.id, { privacy, title: "Hello" });
      const result = await loadSharePost(code, null, null);
      expect(result.kind).toBe("post");
      if (result.kind !== "post") return;
      expect(result.owner).toBe(false);
      expect(result.post.title).toBe("Hello");
      expect(result.post.files[0].url).not.toContain("sig=");
      // The author set a link domain: the share URL uses it.
      expect(result.post.url).toBe(`https://links.example.com/${code}`);
    }
  });

  it("a private post is not found except for its owner and its access list", async () => {
    const { id, code } = await createTestPost(owner.id, { privacy: "private" });
    await db().postAccess.create({ data: { postId: id, userId: friend.id } });
    expect((await loadSharePost(code, null, null)).kind).toBe("not_found");
    expect((await loadSharePost(code, stranger.id, null)).kind).toBe("not_found");
    const own = await loadSharePost(code, owner.id, null);
    expect(own.kind).toBe("post");
    if (own.kind === "post") {
      expect(own.owner).toBe(true);
      // Files of private posts are signed (lib/crypto/signing.ts).
      expect(own.post.files[0].url).toMatch(/[?&]sig=/);
    }
    const granted = await loadSharePost(code, friend.id, null);
    expect(granted.kind).toBe("post");
    if (granted.kind === "post") expect(granted.owner).toBe(false);
  });

  it("a moderated post is a notice for others and the post for its owner", async () => {
    const { code } = await createTestPost(owner.id, { moderated: true });
    expect((await loadSharePost(code, null, null)).kind).toBe("moderated");
    expect((await loadSharePost(code, stranger.id, null)).kind).toBe("moderated");
    const own = await loadSharePost(code, owner.id, null);
    expect(own.kind).toBe("post");
    if (own.kind === "post") expect(own.post.moderated).toBe(true);
  });

  it("drafts and unknown codes are not found", async () => {
    const { code } = await createTestPost(owner.id, { draft: true });
    expect((await loadSharePost(code, stranger.id, null)).kind).toBe("not_found");
    expect((await loadSharePost("NoSuchCode1", null, null)).kind).toBe("not_found");
  });

  it("a link domain shows only its owner's posts", async () => {
    const mine = await createTestPost(owner.id);
    const theirs = await createTestPost(stranger.id);
    expect((await loadSharePost(mine.code, null, "links.example.com")).kind).toBe("post");
    expect((await loadSharePost(theirs.code, null, "links.example.com")).kind).toBe("not_found");
    expect((await loadSharePost(mine.code, null, "other.example.com")).kind).toBe("not_found");
  });

  it("a link domain waiting for its DNS proof serves nothing (docs/link-domains.md)", async () => {
    const claimer = await createTestUser();
    await db().user.update({ where: { id: claimer.id }, data: { linkDomain: "pending.example.com", linkDomainVerifiedAt: null } });
    const post = await createTestPost(claimer.id);
    expect((await loadSharePost(post.code, null, "pending.example.com")).kind).toBe("not_found");
  });

  it("robots do not count views, browsers do", () => {
    expect(isRobot("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)")).toBe(true);
    expect(isRobot("facebookexternalhit/1.1 Facebot Twitterbot/1.0")).toBe(true);
    expect(isRobot("TelegramBot (like TwitterBot)")).toBe(true);
    expect(isRobot(null)).toBe(true);
    expect(isRobot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36")).toBe(false);
  });
});
