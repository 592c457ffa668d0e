/**
 * POST /convert rules and errors (interface.md: rules 1-8, the endpoint's error table, the
 * convert caps and the 10/min limit), through the real dispatcher with real media.
 */
import { stat } from "node:fs/promises";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { resetMediaConfig } from "@/lib/media/config";
import { dispatcher } from "@/lib/routes";
import { mediaLimiter, resetMediaLimiter, withMediaSlot } from "@/lib/media/limiter";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestTeam, createTestUser, type TestUser } from "../support/fixtures";
import { fixture } from "../support/media";
import { form } from "../support/multipart";
import {
  convertFixture,
  expectError,
  expectNoTempLeft,
  magicOf,
  postConvert,
  rawMultipart,
  readFixture,
  storedCounts,
  tempEntries,
  withEnv,
} from "./helpers";

useTestDatabase();
useCounterStore({ perTest: true });

let free: TestUser;
let plus: TestUser;
let ultra: TestUser;
beforeAll(async () => {
  [free, plus, ultra] = await Promise.all([
    createTestUser({ plan: "free" }),
    createTestUser({ plan: "plus" }),
    createTestUser({ plan: "ultra" }),
  ]);
});
afterEach(expectNoTempLeft);

describe("convert-target header (rule 1)", () => {
  it("missing → 400 invalid_request, before the body is read", async () => {
    const reply = await postConvert({ key: free.apiKey, body: await form([{ path: await fixture("png") }]) });
    expectError(reply, 400, "invalid_request");
    expect(reply.json?.error?.message).toMatch(/convert-target/);
    expect(reply.headers.get("request-id")).toBeTruthy();
  });

  it.each(["", "   ", "bmp", "mov", "image/png", "png,jpeg", "jpegg", "constructor"])("invalid %j → 400 invalid_request", async (value) => {
    expectError(await convertFixture(free.apiKey, "png", value), 400, "invalid_request");
  });

  it("is trimmed and case-insensitive", async () => {
    const reply = await convertFixture(free.apiKey, "png", "  WebP ");
    expect(reply.status).toBe(200);
    expect(magicOf(reply.bytes)).toBe("webp");
  });

  it("takes only the seven values of the rule: jpg → 400 invalid_request naming jpeg; jpeg output is named .jpg", async () => {
    const jpg = await convertFixture(free.apiKey, "png", "JPG");
    expectError(jpg, 400, "invalid_request");
    expect(jpg.json?.error?.message).toContain('"jpeg"');
    const reply = await convertFixture(free.apiKey, "png", "jpeg");
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-type")).toBe("image/jpeg");
    expect(reply.headers.get("content-disposition")).toBe('attachment; filename="source-png.jpg"');
  });
});

describe("the file (rules 1-2, only the first file is read)", () => {
  it("no file part → 400 invalid_request", async () => {
    const body = new FormData();
    body.append("title", "no file here");
    expectError(await postConvert({ key: free.apiKey, target: "png", body }), 400, "invalid_request");
  });

  it("a file in another field → 400 invalid_request", async () => {
    const body = await form([{ path: await fixture("png"), field: "upload" }]);
    expectError(await postConvert({ key: free.apiKey, target: "png", body }), 400, "invalid_request");
  });

  it("an empty file part (a form with no file chosen) → 400 invalid_request", async () => {
    const body = new FormData();
    body.append("file", new Blob([]), "empty.png");
    expectError(await postConvert({ key: free.apiKey, target: "png", body }), 400, "invalid_request");
  });

  it("a body that is not multipart → 400 invalid_request", async () => {
    const reply = await postConvert({ key: free.apiKey, target: "png", body: "{}", headers: { "content-type": "application/json" } });
    expectError(reply, 400, "invalid_request");
    expectError(await postConvert({ key: free.apiKey, target: "png" }), 400, "invalid_request");
  });

  it("only the first file is converted; later files are ignored", async () => {
    const body = await form([
      { path: await fixture("png"), name: "first.png" },
      { path: await fixture("mp4"), name: "second.mp4" },
    ]);
    const reply = await postConvert({ key: free.apiKey, target: "webp", body });
    expect(reply.status).toBe(200);
    expect(reply.headers.get("content-disposition")).toBe('attachment; filename="first.webp"');
    const meta = await sharp(reply.bytes).metadata();
    expect([meta.width, meta.height]).toEqual([64, 48]);
  });

  it("a later good file does not rescue a bad first one", async () => {
    const body = await form([{ path: await fixture("textPng") }, { path: await fixture("png") }]);
    expectError(await postConvert({ key: free.apiKey, target: "webp", body }), 400, "unsupported_type");
  });

  it("text fields before the file are skipped over", async () => {
    const body = new FormData();
    body.append("note", "hello");
    const withFile = await form([{ path: await fixture("png") }]);
    body.append("file", withFile.get("file")!);
    expect((await postConvert({ key: free.apiKey, target: "gif", body })).status).toBe(200);
  });
});

describe("unsupported and corrupt input (rules 2-3)", () => {
  it.each([
    ["png", "mp4"],
    ["png", "mp3"],
    ["jpegExif", "mp4"],
    ["gifAnimated", "gif"],
    ["gifAnimated", "mp3"],
    ["mp4", "png"],
    ["mov", "webp"],
    ["mkv", "avif"],
    ["mp4", "jpeg"],
  ] as const)("%s → %s is outside the matrix: 400 unsupported_type", async (name, target) => {
    expectError(await convertFixture(ultra.apiKey, name, target), 400, "unsupported_type");
  });

  it("types that are not convertible sources (text named .png, WebM) → 400 unsupported_type", async () => {
    expectError(await convertFixture(ultra.apiKey, "textPng", "png"), 400, "unsupported_type");
    expectError(await convertFixture(ultra.apiKey, "webm", "mp4"), 400, "unsupported_type");
  });

  it("a video without audio cannot become MP3 → 400 unsupported_type", async () => {
    expectError(await convertFixture(ultra.apiKey, "mp4Silent", "mp3"), 400, "unsupported_type");
  });

  it("a corrupt image or a truncated video → 400 invalid_request", async () => {
    expectError(await convertFixture(ultra.apiKey, "corruptPng", "webp"), 400, "invalid_request");
    expectError(await convertFixture(ultra.apiKey, "truncatedMp4", "mp4"), 400, "invalid_request");
  });
});

describe("plans and keys (rule 4, team keys)", () => {
  it("video → GIF on Free → 403 plan_required", async () => {
    for (const name of ["mp4", "mov", "mkv"] as const) {
      expectError(await convertFixture(free.apiKey, name, "gif"), 403, "plan_required");
    }
  });

  it("Free may convert everything else, GIF → MP4 and image → GIF included", async () => {
    expect((await convertFixture(free.apiKey, "gifAnimated", "mp4")).status).toBe(200);
    expect((await convertFixture(free.apiKey, "png", "gif")).status).toBe(200);
    expect((await convertFixture(free.apiKey, "mp4", "mp3")).status).toBe(200);
  });

  it("an unsupported pair is unsupported_type even for Free (the matrix is checked first)", async () => {
    expectError(await convertFixture(free.apiKey, "mp4", "png"), 400, "unsupported_type");
  });

  it("Plus and Ultra may convert video → GIF", async () => {
    expect(magicOf((await convertFixture(plus.apiKey, "mp4", "gif")).bytes)).toBe("gif");
    expect(magicOf((await convertFixture(ultra.apiKey, "mov", "gif")).bytes)).toBe("gif");
  });

  it("a team key counts as Ultra, whatever the owner's plan", async () => {
    const team = await createTestTeam(free.id, "active");
    const reply = await convertFixture(team.key, "mp4", "gif");
    expect(reply.status, reply.bytes.toString().slice(0, 200)).toBe(200);
    expect(magicOf(reply.bytes)).toBe("gif");
  });

  it("a lapsed team key → 403 forbidden", async () => {
    const owner = await createTestUser({ plan: "ultra" });
    const team = await createTestTeam(owner.id, "lapsed");
    expectError(await convertFixture(team.key, "png", "webp"), 403, "forbidden");
  });

  it("a Relay session key works on /relay/convert", async () => {
    const body = await form([{ path: await fixture("png") }]);
    const reply = await postConvert({ key: plus.relayKey, target: "avif", body, surface: "relay" });
    expect(reply.status).toBe(200);
    expect(magicOf(reply.bytes)).toBe("avif");
  });

  it("a missing or unknown key → 401 unauthorized", async () => {
    const body = await form([{ path: await fixture("png") }]);
    const response = await dispatcher("api")(
      new Request("http://localhost/api/convert", { method: "POST", headers: { "convert-target": "png" }, body }),
    );
    expect(response.status).toBe(401);
    expectError(await convertFixture("not-a-key", "png", "png"), 401, "unauthorized");
  });

  it("a suspended account → 403 suspended", async () => {
    const user = await createTestUser({ suspended: true });
    expectError(await convertFixture(user.apiKey, "png", "png"), 403, "suspended");
  });
});

describe("size caps (413 while streaming in)", () => {
  it("a file one byte over the plan's cap → 413 file_too_large; at the cap it converts", async () => {
    const size = (await stat(await fixture("png"))).size;
    await withEnv({ PLAN_FREE_CONVERT_FILE_MAX: String(size - 1) }, async () => {
      expectError(await convertFixture(free.apiKey, "png", "webp"), 413, "file_too_large");
    });
    await withEnv({ PLAN_FREE_CONVERT_FILE_MAX: String(size) }, async () => {
      expect((await convertFixture(free.apiKey, "png", "webp")).status).toBe(200);
    });
  });

  it("the cap is per plan: Plus, Ultra and team keys keep theirs", async () => {
    await withEnv({ PLAN_FREE_CONVERT_FILE_MAX: "1KB" }, async () => {
      expectError(await convertFixture(free.apiKey, "mp4", "mp4"), 413, "file_too_large");
      expect((await convertFixture(plus.apiKey, "mp4", "mp4")).status).toBe(200);
    });
    const team = await createTestTeam(free.id, "active");
    await withEnv({ PLAN_TEAM_CONVERT_FILE_MAX: "1KB" }, async () => {
      expectError(await convertFixture(team.key, "mp4", "mp4"), 413, "file_too_large");
      expect((await convertFixture(ultra.apiKey, "mp4", "mp4")).status).toBe(200);
    });
  });

  it("a declared Content-Length over the cap → 413 before any byte is read", async () => {
    await withEnv({ PLAN_FREE_CONVERT_FILE_MAX: "1KB" }, async () => {
      let pulled = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled++;
          controller.enqueue(new Uint8Array(1024));
        },
      });
      const reply = await postConvert({
        key: free.apiKey,
        target: "png",
        body,
        headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(10 * 1024 * 1024) },
      });
      expectError(reply, 413, "file_too_large");
      // At most what the stream buffered ahead on its own (its high-water mark): no reading.
      expect(pulled).toBeLessThanOrEqual(1);
    });
  });

  it("an endless upload is cut off at the cap, not read to the end", async () => {
    await withEnv({ PLAN_FREE_CONVERT_FILE_MAX: "1MB" }, async () => {
      const boundary = "endless";
      const head = new TextEncoder().encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
      );
      let sent = 0;
      const chunk = new Uint8Array(64 * 1024).fill(7);
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
        },
        pull(controller) {
          sent += chunk.length;
          if (sent > 512 * 1024 * 1024)
            controller.close(); // a safety stop; never reached
          else controller.enqueue(chunk);
        },
      });
      const reply = await postConvert({
        key: free.apiKey,
        target: "png",
        body,
        headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
      });
      expectError(reply, 413, "file_too_large");
      expect(sent).toBeLessThan(4 * 1024 * 1024);
    });
  });
});

describe("limits on the work", () => {
  it("more than 10 conversions a minute → 429 rate_limited with Retry-After", async () => {
    const user = await createTestUser({ plan: "free" });
    for (let i = 0; i < 10; i++) {
      const reply = await convertFixture(user.apiKey, "pngPlain", "png");
      expect(reply.status).toBe(200);
      expect(reply.headers.get("x-ratelimit-remaining")).toBe(String(9 - i));
    }
    const reply = await convertFixture(user.apiKey, "pngPlain", "png");
    expectError(reply, 429, "rate_limited");
    const retryAfter = Number(reply.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Per user: another account is not affected.
    expect((await convertFixture(plus.apiKey, "pngPlain", "png")).status).toBe(200);
  });

  it("media queue full → 503 unavailable with Retry-After; fine again once a slot frees", async () => {
    await withEnv({ MEDIA_CONCURRENCY: "1", MEDIA_QUEUE_MAX: "0" }, async () => {
      resetMediaConfig();
      resetMediaLimiter();
      let release!: () => void;
      const gate = new Promise<void>((done) => (release = done));
      const held = withMediaSlot(() => gate);
      try {
        expect(mediaLimiter().stats().active).toBe(1);
        const reply = await convertFixture(ultra.apiKey, "png", "webp");
        expectError(reply, 503, "unavailable");
        expect(Number(reply.headers.get("retry-after"))).toBeGreaterThan(0);
        expect(await tempEntries()).toEqual([]);
      } finally {
        release();
        await held;
      }
      expect((await convertFixture(ultra.apiKey, "png", "webp")).status).toBe(200);
    });
    resetMediaConfig();
    resetMediaLimiter();
  });

  it("a conversion over CONVERT_TIMEOUT_SECONDS → 400 invalid_request naming the limit, files removed", async () => {
    await withEnv({ CONVERT_TIMEOUT_SECONDS: "0.001" }, async () => {
      const reply = await convertFixture(ultra.apiKey, "mp4", "gif");
      expectError(reply, 400, "invalid_request");
      expect(reply.json?.error?.message).toMatch(/limit/);
    });
  });
});

describe("conversion failure", () => {
  it("a server-side failure (ffmpeg cannot start) → 500 internal, files removed", async () => {
    const logged: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void logged.push(args);
    try {
      await withEnv({ FFMPEG_PATH: "/nonexistent/ffmpeg", FFPROBE_PATH: "/nonexistent/ffprobe" }, async () => {
        resetMediaConfig();
        const reply = await convertFixture(ultra.apiKey, "mp4", "mp3");
        expectError(reply, 500, "internal");
        expect(reply.json?.error?.message).toMatch(/request-id/);
      });
    } finally {
      console.error = original;
      resetMediaConfig();
    }
    // Logged for the operator (the client sees only the request id).
    expect(String(logged.flat().map((x) => (x instanceof Error ? `${x.message} ${String(x.cause)}` : x)))).toMatch(/could not be started/);
  });
});

describe("nothing stored (rule 7)", () => {
  it("no post, no file, no usage, no job, nothing in storage, upload count unchanged", async () => {
    const user = await createTestUser({ plan: "plus" });
    const before = await storedCounts();
    for (const [name, target] of [
      ["png", "avif"],
      ["mp4", "gif"],
      ["mov", "mp4"],
      ["mkv", "mp3"],
    ] as const) {
      expect((await convertFixture(user.apiKey, name, target)).status).toBe(200);
    }
    expect(await storedCounts()).toEqual(before);
    expect(before).toMatchObject({ posts: 0, files: 0, usageDays: 0, usageWindows: 0, stored: 0 });
    expect((await db().user.findUniqueOrThrow({ where: { id: user.id } })).uploadCount).toBe(0);
  });
});

describe("the attachment name", () => {
  it.each([
    ["holiday photo.png", 'attachment; filename="holiday photo.webp"'],
    ["shot.final.png", 'attachment; filename="shot.final.webp"'],
    ["C:\\Users\\me\\shot.png", 'attachment; filename="shot.webp"'],
    ["../../etc/passwd", 'attachment; filename="passwd.webp"'],
    ["we'ird<name>|x.png", 'attachment; filename="we\'ird_name__x.webp"'],
    ["100% done.png", "attachment; filename=\"100_ done.webp\"; filename*=UTF-8''100%25%20done.webp"],
    ["Été 2024.png", "attachment; filename=\"Ete 2024.webp\"; filename*=UTF-8''%C3%89t%C3%A9%202024.webp"],
    ["写真.png", "attachment; filename=\"__.webp\"; filename*=UTF-8''%E5%86%99%E7%9C%9F.webp"],
    ["..png", 'attachment; filename="converted.webp"'],
    ["", 'attachment; filename="converted.webp"'],
  ])("%j → %s", async (name, header) => {
    const { body, headers } = rawMultipart(name, await readFixture("png"));
    const reply = await postConvert({ key: ultra.apiKey, target: "webp", body, headers });
    expect(reply.status, reply.bytes.toString().slice(0, 200)).toBe(200);
    expect(reply.headers.get("content-disposition")).toBe(header);
  });

  it("a browser's FormData name (quotes percent-encoded by the browser) stays safe", async () => {
    const body = await form([{ path: await fixture("png"), name: 'say "hi".png' }]);
    const reply = await postConvert({ key: ultra.apiKey, target: "png", body });
    expect(reply.headers.get("content-disposition")).toBe(
      "attachment; filename=\"say _22hi_22.png\"; filename*=UTF-8''say%20%2522hi%2522.png",
    );
  });

  it("error replies are JSON, not attachments", async () => {
    const reply = await convertFixture(free.apiKey, "png", "bmp");
    expect(reply.headers.get("content-type")).toMatch(/^application\/json/);
    expect(reply.headers.get("content-disposition")).toBeNull();
  });
});
