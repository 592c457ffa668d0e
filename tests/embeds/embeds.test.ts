/**
 * Embed styles (docs/embeds.md): the templates and their variables, the limits, the order
 * account → operator → default, the Relay endpoints (GET/PUT /users/@me/embed) and oEmbed
 * reading the style, on a real database.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as oembedGet } from "@/app/oembed/route";
import { env, resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { parseStoredStyle } from "@/lib/embeds/style";
import {
  EMBED_LIMITS,
  EMBED_VARIABLES,
  type EmbedFacts,
  type EmbedText,
  humanSize,
  NO_TEMPLATES,
  renderEmbed,
  renderTemplate,
} from "@/lib/embeds/template";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";
import { relay } from "../support/http";
import { loadSharePost } from "@/lib/web/share";
import { shareEmbed } from "@/lib/web/share-embed";

useTestDatabase();

const FACTS: EmbedFacts = {
  code: "AbCdEf12",
  url: "https://i.example.com/p/AbCdEf12",
  title: null,
  description: "Sunset",
  created_at: "2026-12-06T15:00:00.000Z",
  view_count: 42,
  like_count: 3,
  file_count: 1,
  file: { name: "beach.png", size: 1_572_864, mime_type: "image/png", width: 64, height: 48 },
  author: { username: "ana", nickname: "Ana B." },
};
const DEFAULTS: EmbedText = { title: "beach.png", description: "An image by ana", site_name: "Mediahost", author: "ana", color: "#3552e3" };

describe("templates", () => {
  it("fills every documented variable", () => {
    const all = EMBED_VARIABLES.map((v) => `{${v.name}}`).join("|");
    expect(renderTemplate(all, FACTS)).toBe(
      "beach.png|1.5 MB|1572864|image/png|64×48|beach.png|Sunset|42|3|1|2026-12-06|AbCdEf12|https://i.example.com/p/AbCdEf12|ana|Ana B.",
    );
  });

  it("leaves unknown names as written and writes {{ }} as braces", () => {
    expect(renderTemplate("{file.nme} {{file.name}} {user.name}", FACTS)).toBe("{file.nme} {file.name} ana");
  });

  it("writes sizes as people read them", () => {
    expect([humanSize(0), humanSize(1023), humanSize(1536), humanSize(10 * 1024 ** 2), humanSize(3 * 1024 ** 4)]).toEqual([
      "0 B",
      "1023 B",
      "1.5 KB",
      "10 MB",
      "3.0 TB",
    ]);
  });

  it("takes the account's template, else the operator's, else the default", () => {
    const account = { ...NO_TEMPLATES, title: "{file.name} by {user.nickname}", color: "#ff0000" };
    const operator = { ...NO_TEMPLATES, title: "operator", description: "{post.views} views" };
    expect(renderEmbed(account, operator, FACTS, DEFAULTS)).toEqual({
      title: "beach.png by Ana B.",
      description: "42 views",
      site_name: "Mediahost",
      author: "ana",
      color: "#ff0000",
    });
    expect(renderEmbed(NO_TEMPLATES, NO_TEMPLATES, FACTS, DEFAULTS)).toEqual(DEFAULTS);
  });

  it("falls back when a template renders to nothing, removes control characters and cuts to the limit", () => {
    const facts = { ...FACTS, description: null };
    const account = { ...NO_TEMPLATES, description: "{post.description}", title: "a\u0007b\nc", author: "x".repeat(400) };
    const embed = renderEmbed(account, NO_TEMPLATES, facts, DEFAULTS);
    expect(embed.description).toBe(DEFAULTS.description);
    expect(embed.title).toBe("ab c");
    expect(Array.from(embed.author ?? "")).toHaveLength(EMBED_LIMITS.author);
    expect(embed.author?.endsWith("…")).toBe(true);
    // A long file name cannot push the title past its limit either.
    const long = renderEmbed(
      { ...NO_TEMPLATES, title: "{file.name}" },
      NO_TEMPLATES,
      { ...FACTS, file: { ...FACTS.file!, name: "é".repeat(300) } },
      DEFAULTS,
    );
    expect(Array.from(long.title)).toHaveLength(EMBED_LIMITS.title);
  });

  it("reads a stored style leniently: a broken field is unset, broken JSON is no style", () => {
    expect(parseStoredStyle('{"title":"t","color":"red"}')).toEqual({ ...NO_TEMPLATES, title: "t" });
    expect(parseStoredStyle("{not json")).toEqual(NO_TEMPLATES);
    expect(parseStoredStyle(null)).toEqual(NO_TEMPLATES);
  });
});

describe("GET and PUT /users/@me/embed", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createTestUser();
  });

  it("starts unset, saves a style, and clears it back to the defaults", async () => {
    expect((await relay("/users/@me/embed", { key: user.relayKey })).body).toEqual({ embed: NO_TEMPLATES });
    const style = {
      title: "{file.name}",
      description: "{file.size} · {post.views} views",
      site_name: "Ana's shots",
      author: "{user.nickname}",
      color: "#FF8800",
    };
    const put = await relay("/users/@me/embed", { key: user.relayKey, method: "PUT", body: style });
    expect(put.status, put.text).toBe(200);
    expect(put.body.embed).toEqual({ ...style, color: "#ff8800" });
    expect((await relay("/users/@me/embed", { key: user.relayKey })).body.embed).toEqual({ ...style, color: "#ff8800" });
    // Blank fields are "not set"; a style with none set is no style at all.
    const cleared = await relay("/users/@me/embed", { key: user.relayKey, method: "PUT", body: { title: "  ", color: null } });
    expect(cleared.body.embed).toEqual(NO_TEMPLATES);
    expect((await db().user.findUnique({ where: { id: user.id } }))?.embedStyle).toBeNull();
  });

  it("refuses bad values with invalid_request naming the field", async () => {
    for (const [body, field] of [
      [{ title: "x".repeat(EMBED_LIMITS.title + 1) }, "title"],
      [{ site_name: "x".repeat(EMBED_LIMITS.site_name + 1) }, "site_name"],
      [{ color: "orange" }, "color"],
      [{ description: "a\u0000b" }, "description"],
      [{ colour: "#ffffff" }, "colour"],
    ] as const) {
      const res = await relay("/users/@me/embed", { key: user.relayKey, method: "PUT", body });
      expect(res.status, field).toBe(400);
      expect(res.body.error.type).toBe("invalid_request");
      expect(res.body.error.message, field).toContain(field);
    }
  });

  it("needs a signed-in account", async () => {
    expect((await relay("/users/@me/embed")).status).toBe(401);
  });
});

describe("oEmbed with a style", () => {
  afterEach(() => {
    delete process.env.EMBED_AUTHOR;
    resetEnv();
  });

  async function oembed(code: string): Promise<Record<string, unknown>> {
    const url = `${env().shareUrl}/${code}`;
    const response = await oembedGet(new Request(`http://localhost/oembed?${new URLSearchParams({ url })}`));
    return (await response.json()) as Record<string, unknown>;
  }

  it("carries the account's title, site name and author line, escaped by JSON", async () => {
    const owner = await createTestUser();
    const { code } = await createTestPost(owner.id, { title: "Cat" });
    await relay("/users/@me/embed", {
      key: owner.relayKey,
      method: "PUT",
      body: { title: '<script>alert("{post.title}")</script>', site_name: "Shots & more", author: "by {user.name}" },
    });
    expect(await oembed(code)).toMatchObject({
      title: '<script>alert("Cat")</script>',
      provider_name: "Shots & more",
      author_name: `by ${owner.username}`,
    });
  });

  it("takes the operator's template for an account with none, and is unchanged with neither", async () => {
    const owner = await createTestUser();
    const { code } = await createTestPost(owner.id, { title: "Dog" });
    expect(await oembed(code)).toMatchObject({ title: "Dog", provider_name: "Mediahost", author_name: owner.username });
    process.env.EMBED_AUTHOR = "Uploaded by {user.name}";
    resetEnv();
    expect(await oembed(code)).toMatchObject({ title: "Dog", author_name: `Uploaded by ${owner.username}` });
  });
});

describe("the share page's embed", () => {
  it("styles a public post fully, and a private one only in colour (a template could name the file)", async () => {
    const owner = await createTestUser();
    await relay("/users/@me/embed", {
      key: owner.relayKey,
      method: "PUT",
      body: { title: "{file.name}!", site_name: "Mine", color: "#00aa00" },
    });
    for (const privacy of ["unlisted", "private"] as const) {
      const { code } = await createTestPost(owner.id, { title: "Kept", privacy });
      const result = await loadSharePost(code, owner.id, null, true);
      if (result.kind !== "post") throw new Error(result.kind);
      const embed = await shareEmbed(result.post, result.record.userId, privacy === "private");
      if (privacy === "private") expect(embed).toMatchObject({ title: "Kept", site_name: "Mediahost", color: "#00aa00" });
      else expect(embed).toMatchObject({ title: `${result.post.files[0].name}!`, site_name: "Mine", color: "#00aa00" });
    }
  });
});
