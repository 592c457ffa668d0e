/**
 * "Download my data" (issue 27 §2, docs/account-deletion.md): the zip of GET
 * /relay/users/@me/export and of `admin user export`, unpacked with the real `unzip`: every
 * file byte for byte, the posts, comments and likes as JSON. And it is streamed: exporting a
 * file far larger than the memory the export may use keeps memory flat.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { exportAccount, exportPath } from "@/lib/accounts/export";
import { runAdmin } from "@/lib/cli/admin";
import { db } from "@/lib/db/client";
import { dispatcher } from "@/lib/routes";
import { createComment } from "@/lib/social/comments";
import { likePost } from "@/lib/social/likes";
import { storage } from "@/lib/storage";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestPost, createTestUser, type TestUser } from "../support/fixtures";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

const run = promisify(execFile);

/** Unpacks a zip with the system's unzip (Info-ZIP); answers the folder. */
async function unzip(file: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "export-"));
  await run("unzip", ["-q", file, "-d", dir]);
  return dir;
}

/** The zip's entry names, as unzip lists them. */
async function entries(file: string): Promise<string[]> {
  const { stdout } = await run("unzip", ["-Z1", file]);
  return stdout.split("\n").filter(Boolean).sort();
}

interface Exporter {
  user: TestUser;
  posts: { code: string; names: string[]; keys: string[] }[];
  /** Bytes of every file, by its path in the zip. */
  bytes: Map<string, Buffer>;
}

async function exporter(): Promise<Exporter> {
  const user = await createTestUser();
  const other = await createTestUser();
  const otherPost = await createTestPost(other.id, { privacy: "public" });
  const posts = [await createTestPost(user.id, { files: 2, title: "Two files" }), await createTestPost(user.id, { privacy: "unlisted" })];
  // Replace one file's bytes with random binary (every byte value), as uploaded.
  const binary = randomBytes(300_000);
  await storage().putBuffer(posts[0].keys[1], binary, "image/png");
  await db().file.updateMany({ where: { storageKey: posts[0].keys[1] }, data: { size: BigInt(binary.length) } });
  const bytes = new Map<string, Buffer>();
  for (const post of posts) {
    for (const [i, name] of post.names.entries()) {
      const object = await storage().open(post.keys[i]);
      const chunks: Buffer[] = [];
      for await (const chunk of object!.body) chunks.push(chunk as Buffer);
      bytes.set(exportPath(post.code, name), Buffer.concat(chunks));
    }
  }
  // The owner's tags and favourite mark travel with the post (docs/tags.md).
  const tag = await db().tag.create({ data: { userId: user.id, name: "Trips", nameKey: "trips", color: "#64748b" } });
  const first = await db().post.update({ where: { code: posts[0].code }, data: { favorite: true } });
  await db().postTag.create({ data: { postId: first.id, tagId: tag.id } });
  await likePost(user.id, otherPost.code);
  await createComment(user.id, otherPost.code, "a comment of mine");
  // Someone else's comment on the user's post is not the user's data.
  await createComment(other.id, posts[0].code, "not theirs");
  return { user, posts, bytes };
}

async function expectContents(zip: string, e: Exporter): Promise<void> {
  expect(await entries(zip)).toEqual(
    ["account.json", "posts.json", "comments.json", "likes.json", "folders.json", "links.json", ...e.bytes.keys()].sort(),
  );
  const dir = await unzip(zip);
  for (const [path, expected] of e.bytes) expect((await readFile(join(dir, path))).equals(expected), path).toBe(true);
  const json = async (name: string) => JSON.parse(await readFile(join(dir, name), "utf8"));
  expect(await json("account.json")).toMatchObject({ id: e.user.id, username: e.user.username });
  const posts = await json("posts.json");
  expect(posts.map((p: { code: string }) => p.code).sort()).toEqual(e.posts.map((p) => p.code).sort());
  const first = posts.find((p: { code: string }) => p.code === e.posts[0].code);
  expect(first).toMatchObject({
    title: "Two files",
    favorite: true,
    tags: ["Trips"],
    files: [{ name: e.posts[0].names[0] }, { name: e.posts[0].names[1], size: 300_000 }],
  });
  expect(first.files[1].path).toBe(exportPath(e.posts[0].code, e.posts[0].names[1]));
  const comments = await json("comments.json");
  expect(comments).toEqual([expect.objectContaining({ body: "a comment of mine" })]);
  expect(await json("likes.json")).toHaveLength(1);
}

describe("download my data", () => {
  it("GET /relay/users/@me/export answers a zip with every file byte for byte and the JSON", async () => {
    const e = await exporter();
    const headers = new Headers({ "relay-key": e.user.relayKey, "x-client-ip": "198.51.100.7" });
    const response = await dispatcher("relay")(new Request("http://localhost/relay/users/@me/export", { headers }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toContain(`${e.user.username}-data.zip`);
    expect(response.headers.get("cache-control")).toContain("no-store");
    const zip = join(await mkdtemp(join(tmpdir(), "export-")), "data.zip");
    await pipeline(Readable.fromWeb(response.body! as import("node:stream/web").ReadableStream), createWriteStream(zip));
    await expectContents(zip, e);
  });

  it("admin user export --out FILE writes the same zip; an existing file is never overwritten", async () => {
    const e = await exporter();
    const zip = join(await mkdtemp(join(tmpdir(), "export-")), "data.zip");
    const result = await runAdmin(["user", "export", "--user", e.user.username, "--out", zip]);
    expect(result.exitCode, JSON.stringify(result.output)).toBe(0);
    expect(result.output).toMatchObject({ id: e.user.id, username: e.user.username, out: zip });
    expect((result.output as { bytes: number }).bytes).toBe((await readFile(zip)).length);
    await expectContents(zip, e);
    expect(await db().auditEntry.count({ where: { action: "user.export", targetId: e.user.id } })).toBe(1);

    const again = await runAdmin(["user", "export", "--user", e.user.username, "--out", zip]);
    expect(again).toMatchObject({ exitCode: 1, output: { error: { type: "invalid_request" } } });
    await expectContents(zip, e);
  });

  it("is streamed: a file of 192 MB passes through while memory stays far below its size", async () => {
    const user = await createTestUser();
    const post = await createTestPost(user.id, { mimeType: "video/mp4" });
    // 192 MB of incompressible bytes, stored as the post's file.
    const size = 192 * 1024 * 1024;
    const source = join(await mkdtemp(join(tmpdir(), "export-")), "big.mp4");
    const block = randomBytes(1024 * 1024);
    await pipeline(
      Readable.from(
        (function* () {
          for (let i = 0; i < size / block.length; i++) yield block;
        })(),
      ),
      createWriteStream(source),
    );
    await storage().putFile(post.keys[0], source, "video/mp4");
    await db().file.updateMany({ where: { storageKey: post.keys[0] }, data: { size: BigInt(size) } });
    // The stored copy may share the temporary file's inode (a hard link): unlink, never truncate.
    await rm(source);

    const before = process.memoryUsage();
    let peak = 0;
    let total = 0;
    const { stream } = await exportAccount(user.id);
    for await (const chunk of stream) {
      total += (chunk as Buffer).length;
      const now = process.memoryUsage();
      peak = Math.max(peak, now.arrayBuffers - before.arrayBuffers, now.rss - before.rss);
    }
    expect(total).toBeGreaterThan(size);
    // Built in memory, the zip would hold all 192 MB at once.
    expect(peak).toBeLessThan(96 * 1024 * 1024);
  });
});
