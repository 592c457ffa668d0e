/**
 * Issue 39 §3: the share target reads its body bounded and streams files. Called as Next calls
 * the route (app/share-target/route.ts) with a real web session, real database and the real
 * upload pipeline; bodies are made lazily and every byte the handler pulls is counted.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { encode } from "next-auth/jwt";
import sharp from "sharp";
import { describe, expect, it, vi } from "vitest";
import { POST } from "@/app/share-target/route";
import { SESSION_COOKIE_NAMES, webAuthSecret } from "@/lib/auth/web-session";
import { db } from "@/lib/db/client";
import { tempRoot } from "@/lib/files/temp";
import { setUploadPrivacy } from "@/lib/users/upload-privacy";
import { ownPostPrivacy } from "@/lib/web/dashboard/shared";
import { SHARE_TEXT_LIMIT } from "@/lib/web/share-body";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

const MB = 1024 * 1024;
const CHUNK = 16 * 1024;

async function cookieOf(user: TestUser): Promise<string> {
  const session = await db().relaySession.findFirstOrThrow({ where: { userId: user.id } });
  const token = await encode({ token: { uid: user.id, sid: session.id }, secret: webAuthSecret() });
  return `${SESSION_COOKIE_NAMES[1]}=${token}`;
}

/** A body of `total` bytes made as it is read: `head`, then filler, then `tail`; `pulled` counts what was read. */
function lazyBody(total: number, head = Buffer.alloc(0), tail = Buffer.alloc(0), filler = 0x61) {
  const counter = { pulled: 0 };
  let sent = 0;
  const chunk = Buffer.alloc(CHUNK, filler);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      let piece: Buffer;
      if (sent === 0 && head.length) piece = head;
      else if (sent >= total - tail.length) piece = tail;
      else piece = chunk.subarray(0, Math.min(CHUNK, total - tail.length - sent));
      if (piece.length === 0 || sent >= total) return controller.close();
      sent += piece.length;
      counter.pulled += piece.length;
      controller.enqueue(new Uint8Array(piece));
    },
  });
  return { body, counter };
}

const share = (cookie: string, body: BodyInit, contentType: string, extra: Record<string, string> = {}) =>
  POST(
    new Request("http://localhost/share-target", {
      method: "POST",
      headers: { cookie, ...(contentType ? { "content-type": contentType } : {}), "sec-fetch-site": "none", ...extra },
      body,
      duplex: "half",
    } as RequestInit),
  );

describe("the share target's body", () => {
  it("a 200 MB urlencoded body with its length is 413 before the handler reads it", async () => {
    const cookie = await cookieOf(await createTestUser());
    const { body, counter } = lazyBody(200 * MB, Buffer.from("text="));
    const res = await share(cookie, body, "application/x-www-form-urlencoded", { "content-length": String(200 * MB) });
    expect(res.status).toBe(413);
    expect((await res.json()).error.type).toBe("file_too_large");
    // The stream fills its one-chunk queue by itself; the handler reads nothing.
    expect(counter.pulled).toBeLessThanOrEqual(CHUNK);
  });

  it("the same body chunked (no length) is 413 after at most the limit and a chunk", async () => {
    const cookie = await cookieOf(await createTestUser());
    const { body, counter } = lazyBody(200 * MB, Buffer.from("text="));
    const res = await share(cookie, body, "application/x-www-form-urlencoded");
    expect(res.status).toBe(413);
    expect(counter.pulled).toBeLessThanOrEqual(SHARE_TEXT_LIMIT + 2 * CHUNK);
  });

  it("a multipart text share over the limit is 413 without reading on; a small one makes a short link", async () => {
    const cookie = await cookieOf(await createTestUser());
    const boundary = "----share-test";
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\n`);
    const big = lazyBody(50 * MB, head, Buffer.from(`\r\n--${boundary}--\r\n`));
    const refused = await share(cookie, big.body, `multipart/form-data; boundary=${boundary}`);
    expect(refused.status).toBe(413);
    expect(big.counter.pulled).toBeLessThanOrEqual(SHARE_TEXT_LIMIT + 2 * CHUNK);

    const form = new FormData();
    form.append("title", "");
    form.append("text", "https://example.com/shared");
    const made = await share(cookie, form, "");
    expect(made.status).toBe(303);
    expect(new URL(made.headers.get("location") ?? "").searchParams.get("kind")).toBe("link");
  });

  it("a malformed body is answered in words, never a 500", async () => {
    const cookie = await cookieOf(await createTestUser());
    const boundary = "----share-bad";
    const type = `multipart/form-data; boundary=${boundary}`;
    const location = (res: Response) => new URL(res.headers.get("location") ?? "").searchParams.get("error");
    // Text only, never closed: unreadable.
    const open = await share(cookie, Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\nhello`), type);
    expect(open.status).toBe(303);
    expect(location(open)).toBe("unreadable");
    // A file part cut off before its end: the upload's own 400.
    const cut = await share(
      cookie,
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG`,
      ),
      type,
    );
    expect(cut.status).toBe(303);
    expect(location(cut)).toBe("invalid_request");
    // No boundary at all.
    const none = await share(cookie, Buffer.from("text=hello"), "multipart/form-data");
    expect(none.status).toBe(303);
    expect(location(none)).toBe("unreadable");
  });

  it("a shared file over the plan's request limit gets the upload's own answer, not the whole body read", async () => {
    const cookie = await cookieOf(await createTestUser());
    const boundary = "----share-huge";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.mp4"\r\nContent-Type: video/mp4\r\n\r\n`,
    );
    const total = 600 * MB; // the free plan takes 500 MB per request (lib/plans.ts)
    const { body, counter } = lazyBody(total, head, Buffer.from(`\r\n--${boundary}--\r\n`));
    const res = await share(cookie, body, `multipart/form-data; boundary=${boundary}`, { "content-length": String(total) });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location") ?? "").searchParams.get("error")).toBe("file_too_large");
    expect(counter.pulled).toBeLessThan(10 * MB);
  });

  it("a shared file streams to the upload: written to its temporary folder while the body is still arriving", async () => {
    const user = await createTestUser({ plan: "plus" });
    const cookie = await cookieOf(user);
    // A real 3 MB-ish JPEG (noise does not compress), sent in small pieces.
    const jpeg = await sharp({
      create: {
        width: 2200,
        height: 1600,
        channels: 3,
        background: { r: 0, g: 0, b: 0 },
        noise: { type: "gaussian", mean: 128, sigma: 60 },
      },
    })
      .jpeg({ quality: 95 })
      .toBuffer();
    expect(jpeg.length).toBeGreaterThan(2 * MB);
    const boundary = "----share-file";
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="title"\r\n\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="photo.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const whole = Buffer.concat([head, jpeg, tail]);
    const half = Math.floor(whole.length / 2);
    let resume!: () => void;
    const resumed = new Promise<void>((r) => (resume = r));
    let offset = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (offset >= whole.length) return controller.close();
        if (offset >= half) await resumed;
        const piece = whole.subarray(offset, Math.min(offset + 64 * 1024, offset >= half ? whole.length : half));
        offset += piece.length;
        controller.enqueue(new Uint8Array(piece));
      },
    });
    const reply = share(cookie, body, `multipart/form-data; boundary=${boundary}`);
    // While half the body is held back, the file is already on disk in the upload's folder.
    let written = 0;
    while (written < half - head.length - 128 * 1024) {
      written = await bytesUnder(tempRoot());
      await new Promise((r) => setImmediate(r));
    }
    expect(offset).toBeLessThanOrEqual(half);
    resume();
    const res = await reply;
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location") ?? "");
    expect(location.searchParams.get("kind"), location.search).toBe("post");
    const post = await db().post.findFirstOrThrow({ where: { userId: user.id }, include: { files: true } });
    // The account chose nothing: the operator's default for web and share-sheet uploads (issue 38).
    expect(post.privacy).toBe("unlisted");
    expect(post.files).toHaveLength(1);
    expect(post.files[0].mimeType).toBe("image/jpeg");
  });

  it("a shared file gets the account's default privacy: private when the account chose it (issue 38)", async () => {
    const user = await createTestUser({ plan: "plus" });
    await setUploadPrivacy(user.id, "private");
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .png()
      .toBuffer();
    const boundary = "----share-private";
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="shot.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await share(await cookieOf(user), body, `multipart/form-data; boundary=${boundary}`);
    expect(res.status).toBe(303);
    const post = await db().post.findFirstOrThrow({ where: { userId: user.id } });
    expect(post.privacy).toBe("private");
    // The result page reads it as the owner and does not offer it as shareable.
    expect(await ownPostPrivacy(user.id, `http://localhost/p/${post.code}`)).toBe("private");
    expect(await ownPostPrivacy("someone-else", `http://localhost/p/${post.code}`)).toBeNull();
  });
});

/** Bytes of every file under `dir` (the upload's temporary folders). */
async function bytesUnder(dir: string): Promise<number> {
  let total = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    total += (await stat(join(entry.parentPath, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return total;
}
