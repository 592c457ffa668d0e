/**
 * The folder of a resumable upload (docs/resumable-uploads.md, "Metadata"): Upload-Metadata's
 * `folder`, else the creating request's `folder` header, found or created at creation as
 * POST /upload does, and the finished post put in it. In-process, through the real dispatcher.
 */
import { readFile } from "node:fs/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { api } from "../support/http";
import { fixture } from "../support/media";

useTestDatabase();
useCounterStore({ perTest: true });

let png: Buffer;
beforeAll(async () => {
  png = await readFile(await fixture("png"));
});

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const metadataOf = (pairs: Record<string, string>) =>
  Object.entries(pairs)
    .map(([k, v]) => `${k} ${b64(v)}`)
    .join(",");

/** POST /tus; with `whole` the body carries the whole file (creation-with-upload). */
async function create(key: string, metadata: Record<string, string>, headers: Record<string, string> = {}, whole = true) {
  return api("/tus", {
    method: "POST",
    key,
    rawBody: whole ? new Uint8Array(png) : undefined,
    headers: {
      "tus-resumable": "1.0.0",
      "upload-length": String(png.length),
      "upload-metadata": metadataOf({ filename: "shot.png", ...metadata }),
      ...(whole ? { "content-length": String(png.length), "content-type": "application/offset+octet-stream" } : {}),
      ...headers,
    },
  });
}

/** The rest of the file in two PATCHes; the last answers with Upload-Post. */
async function finish(key: string, location: string): Promise<string> {
  const path = new URL(location).pathname.replace(/^\/api/, "");
  const half = Math.floor(png.length / 2);
  for (const [offset, part] of [
    [0, png.subarray(0, half)],
    [half, png.subarray(half)],
  ] as const) {
    const reply = await api(path, {
      method: "PATCH",
      key,
      rawBody: new Uint8Array(part),
      headers: {
        "tus-resumable": "1.0.0",
        "upload-offset": String(offset),
        "content-type": "application/offset+octet-stream",
        "content-length": String(part.length),
      },
    });
    expect(reply.status, reply.text).toBe(204);
    if (offset === half) return reply.headers.get("upload-post")!;
  }
  throw new Error("unreachable");
}

const foldersOf = async (code: string) =>
  (await db().folderPost.findMany({ where: { post: { code } }, include: { folder: true } })).map((m) => m.folder.name);
const folderNamed = (userId: string, name: string) => db().folder.findFirst({ where: { userId, name } });

describe("the folder of a tus upload", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await createTestUser();
  });

  it("Upload-Metadata's folder: a name outside ASCII as is, created private, the post goes in it", async () => {
    const reply = await create(user.apiKey, { folder: "Größe" });
    expect(reply.status, reply.text).toBe(201);
    const code = reply.headers.get("upload-post")!;
    expect(await foldersOf(code)).toEqual(["Größe"]);
    expect(await folderNamed(user.id, "Größe")).toMatchObject({ privacy: "private" });
    // Found again by name in any case, and by id: one folder.
    const again = await create(user.apiKey, { folder: "größe" });
    expect(await foldersOf(again.headers.get("upload-post")!)).toEqual(["Größe"]);
    const folder = (await folderNamed(user.id, "Größe"))!;
    const byId = await create(user.apiKey, { folder: folder.id });
    expect(await foldersOf(byId.headers.get("upload-post")!)).toEqual(["Größe"]);
    expect(await db().folder.count({ where: { userId: user.id } })).toBe(1);
  });

  it("the creating request's folder header (percent-encoded) when the metadata has none, over PATCHes", async () => {
    const created = await create(user.apiKey, {}, { folder: "Caf%C3%A9 shots" }, false);
    expect(created.status, created.text).toBe(201);
    // Found or created at creation, before any byte.
    const folder = await folderNamed(user.id, "Café shots");
    expect(folder).not.toBeNull();
    const code = await finish(user.apiKey, created.headers.get("location")!);
    expect(await foldersOf(code)).toEqual(["Café shots"]);
    const listed = await api(`/posts?folder=${folder!.id}`, { key: user.apiKey });
    expect(listed.body.posts.map((p: { code: string }) => p.code)).toEqual([code]);
  });

  it("the metadata's folder wins over the header", async () => {
    const reply = await create(user.apiKey, { folder: "From metadata" }, { folder: "From header" });
    expect(await foldersOf(reply.headers.get("upload-post")!)).toEqual(["From metadata"]);
    expect(await folderNamed(user.id, "From header")).toBeNull();
  });

  it("a bad name is 400 invalid_request at creation naming where it came from; nothing is created", async () => {
    const before = await db().tusUpload.count();
    const long = "x".repeat(65);
    const viaMetadata = await create(user.apiKey, { folder: long }, {}, false);
    expect(viaMetadata.status).toBe(400);
    expect(viaMetadata.body.error).toMatchObject({ type: "invalid_request", message: expect.stringContaining("Upload-Metadata folder") });
    const viaHeader = await create(user.apiKey, {}, { folder: long }, false);
    expect(viaHeader.status).toBe(400);
    expect(viaHeader.body.error.message).toContain("Header folder");
    expect(await db().tusUpload.count()).toBe(before);
    expect(await db().folder.count({ where: { userId: user.id, name: long } })).toBe(0);
  });

  it("a folder deleted before the last PATCH leaves the post in none", async () => {
    const created = await create(user.apiKey, { folder: "Short-lived" }, {}, false);
    const folder = (await folderNamed(user.id, "Short-lived"))!;
    expect((await api(`/folders/${folder.id}`, { method: "DELETE", key: user.apiKey })).status).toBe(200);
    const code = await finish(user.apiKey, created.headers.get("location")!);
    expect(await foldersOf(code)).toEqual([]);
  });

  it("ignored for a team key and when appending to a post (`post`): no folder is made", async () => {
    const owner = await createTestUser();
    const team = await createTestTeam(owner.id);
    const viaTeam = await create(team.key, { folder: "Team folder" });
    expect(viaTeam.status, viaTeam.text).toBe(201);
    expect(await foldersOf(viaTeam.headers.get("upload-post")!)).toEqual([]);
    expect(await db().folder.count({ where: { userId: owner.id } })).toBe(0);

    const first = await create(owner.apiKey, {});
    const code = first.headers.get("upload-post")!;
    const appended = await create(owner.apiKey, { post: code, folder: "Append folder" });
    expect(appended.status, appended.text).toBe(201);
    expect(appended.headers.get("upload-post")).toBe(code);
    expect(await db().folder.count({ where: { userId: owner.id } })).toBe(0);
  });
});
