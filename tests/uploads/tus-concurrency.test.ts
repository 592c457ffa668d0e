/**
 * One PATCH at a time per resumable upload (docs/resumable-uploads.md, "One PATCH at a
 * time"): eight PATCHes sent at once at the same offset of one 8 MB upload, on one instance
 * and spread over two that share the database and DATA_DIR. The first takes the upload's
 * lock; the seven others are answered 423 while the first is still receiving (before any
 * of their bytes is stored), so the disk never holds more than one Upload-Length; no 500,
 * and the upload becomes the right post.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestServer, type TestServer } from "../support/server";
import { quotaUsed, tusAccount, tusRequest } from "../support/tus";

// Servers and real media on a shared machine: well above the 30 s default.
vi.setConfig({ testTimeout: 180_000 });

const PARALLEL = 8;
let image: Buffer;
const servers: TestServer[] = [];

beforeAll(async () => {
  // Noise does not compress: an ~8 MB PNG.
  const side = 1650;
  image = await sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 0 })
    .toBuffer();
}, 60_000);
afterAll(async () => {
  // Later servers first: the first one's stop() removes the shared DATA_DIR and database.
  for (const s of servers.reverse()) await s.stop();
});

/** Bytes under `dir`, recursively (0 when it does not exist). */
function bytesUnder(dir: string): number {
  if (!existsSync(dir)) return 0;
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    try {
      total += entry.isDirectory() ? bytesUnder(path) : statSync(path).size;
    } catch {
      // removed while we looked
    }
  }
  return total;
}

interface Held {
  request: ClientRequest;
  reply: Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }>;
}

/** A PATCH of the whole file that sends all but its last byte and waits. */
function heldPatch(url: string, key: string, body: Buffer): Held {
  const request = httpRequest(url, {
    method: "PATCH",
    headers: {
      "api-key": key,
      "tus-resumable": "1.0.0",
      "upload-offset": "0",
      "content-type": "application/offset+octet-stream",
      "content-length": String(body.length),
    },
  });
  // A refused request's socket may be cut while we still write: that is its answer, not an error.
  request.on("error", () => {});
  const reply = new Promise<{ status: number; headers: IncomingMessage["headers"]; body: string }>((resolve, reject) => {
    request.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.on("error", reject);
    });
  });
  request.write(body.subarray(0, body.length - 1));
  return { request, reply };
}

async function raceOfPatches(instances: TestServer[], username: string): Promise<void> {
  const [first] = instances;
  const who = await tusAccount(first, username);
  const created = await tusRequest(`${first.url}/api/tus`, who.key, "POST", {
    "upload-length": String(image.length),
    "upload-metadata": `filename ${Buffer.from("noise.png").toString("base64")}`,
  });
  expect(created.status).toBe(201);
  const id = created.headers.get("location")!.split("/").pop()!;

  const held = Array.from({ length: PARALLEL }, (_, i) =>
    heldPatch(`${instances[i % instances.length].url}/api/tus/${id}`, who.key, image),
  );
  // Seven are answered while every body still lacks its last byte: only the lock's holder waits for it.
  const answered = new Set<number>();
  await new Promise<void>((done) => {
    held.forEach((h, i) =>
      h.reply.then(() => {
        answered.add(i);
        if (answered.size === PARALLEL - 1) done();
      }),
    );
  });
  const refusals = await Promise.all([...answered].map((i) => held[i].reply));
  for (const refusal of refusals) {
    expect(refusal.status, refusal.body).toBe(423);
    expect(JSON.parse(refusal.body).error.type).toBe("invalid_request");
    expect(refusal.headers["tus-resumable"]).toBe("1.0.0");
  }
  // Nothing of the refused bodies is stored: temporary files and chunks hold one upload at most.
  const dataDir = first.dataDir;
  expect(bytesUnder(join(dataDir, "tmp")) + bytesUnder(join(dataDir, "files", "tus"))).toBeLessThanOrEqual(image.length);

  const winner = held.findIndex((_, i) => !answered.has(i));
  for (const [i, h] of held.entries()) if (i !== winner) h.request.destroy();
  held[winner].request.end(image.subarray(image.length - 1));
  const done = await held[winner].reply;
  expect(done.status, done.body).toBe(204);
  const code = done.headers["upload-post"] as string;
  expect(code).toMatch(/^[A-Za-z0-9]{10}$/);

  // The post is the file: one PNG of the upload's size, charged once.
  const via = instances[winner % instances.length];
  const read = await fetch(`${via.url}/api/posts/${code}`, { headers: { "api-key": who.key } });
  const { post } = (await read.json()) as { post: { files: { name: string; size: number; mime_type: string; url: string }[] } };
  expect(post.files).toHaveLength(1);
  expect(post.files[0]).toMatchObject({ name: "noise.png", mime_type: "image/png" });
  const meta = await sharp(
    Buffer.from(await (await fetch(post.files[0].url.replace(/^https?:\/\/[^/]+/, via.url))).arrayBuffer()),
  ).metadata();
  expect([meta.width, meta.height]).toEqual([1650, 1650]);
  expect(await quotaUsed(via.url, who.key)).toBe(post.files[0].size);
  const head = await tusRequest(`${first.url}/api/tus/${id}`, who.key, "HEAD");
  expect(head.headers.get("upload-offset")).toBe(String(image.length));
  expect(head.headers.get("upload-post")).toBe(code);
  for (const s of instances) expect(s.output()).not.toMatch(/ENOTEMPTY|ENOENT/);
}

describe("eight PATCHes at once at the same offset", () => {
  it("on one instance: seven 423s before their bodies, one upload's bytes on disk, the right post", async () => {
    const server = await startTestServer({ RECOVERY_INTERVAL_SECONDS: "0", PLAN_FREE_UPLOAD_FILE_MAX: String(20_000_000) });
    servers.push(server);
    await raceOfPatches([server], "tus_race_one");
  });

  it("on two instances sharing the database and DATA_DIR: the lock holds across them", async () => {
    const env = { RECOVERY_INTERVAL_SECONDS: "0", PLAN_FREE_UPLOAD_FILE_MAX: String(20_000_000) };
    const a = await startTestServer(env);
    servers.push(a);
    const b = await startTestServer({ ...env, DATABASE_URL: a.env.DATABASE_URL }, { dataDir: a.dataDir });
    servers.push(b);
    await raceOfPatches([a, b], "tus_race_two");
  });
});
