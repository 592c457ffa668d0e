/**
 * Text read from images (docs/ocr.md), through the real Tesseract on images rendered with
 * sharp from SVG: the job after an upload, the resumable backfill, the owner's search (API
 * and Relay) and the public search that never sees it, the owner-only field, the automatic
 * alt of the share page, cascade on delete, and the service without Tesseract or with OCR=off.
 */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import sharp from "sharp";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as healthz } from "@/app/healthz/route";
import { PostMedia } from "@/components/share/PostMedia";
import { resetEnv } from "@/lib/config/env";
import { db } from "@/lib/db/client";
import { recoverJobs } from "@/lib/jobs";
import { OCR_BACKFILL_JOB, OCR_JOB, ocrBackfillHandler, ocrJobHandler, ocrJobKey, startOcrBackfill } from "@/lib/jobs/ocr-job";
import { claimJob, completeJob, newWorkerId } from "@/lib/jobs/queue";
import type { JobHandler } from "@/lib/jobs/worker";
import { readImageText } from "@/lib/media/ocr";
import { resetOcrConfig } from "@/lib/media/tesseract";
import { describeMediaTools } from "@/lib/media/tools";
import { automaticAlt, autoAltsOf, matchedLine } from "@/lib/posts/text-lines";
import { loadSharePost } from "@/lib/web/share";
import { useCounterStore } from "../support/counters";
import { useTestDatabase } from "../support/db";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api, relay } from "../support/http";

useTestDatabase();
useCounterStore();

/** A light or dark screenshot-like image with `lines` of text at `size` px. */
async function screenshot(lines: string[], opts: { size?: number; dark?: boolean; gif?: boolean } = {}): Promise<Buffer> {
  const size = opts.size ?? 22;
  const height = 40 + lines.length * size * 2;
  const fg = opts.dark ? "#e5e5e5" : "#1a1a1a";
  const text = lines
    .map((line, i) => `<text x="24" y="${40 + i * size * 2}" font-family="DejaVu Sans" font-size="${size}" fill="${fg}">${line}</text>`)
    .join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="${height}"><rect width="100%" height="100%" fill="${opts.dark ? "#1e1e1e" : "#fafafa"}"/>${text}</svg>`;
  const image = sharp(Buffer.from(svg));
  return opts.gif ? image.gif().toBuffer() : image.png().toBuffer();
}

async function upload(who: TestUser, bytes: Buffer, name: string, headers: Record<string, string> = {}) {
  const fd = new FormData();
  fd.append("file", new Blob([new Uint8Array(bytes)], { type: name.endsWith(".gif") ? "image/gif" : "image/png" }), name);
  const reply = await api("/upload", { method: "POST", key: who.apiKey, rawBody: fd, headers });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.post as { code: string };
}

const fileOf = async (code: string) => db().file.findFirstOrThrow({ where: { post: { code } }, orderBy: { index: "asc" } });

/**
 * Runs one queued job as a worker does (claim, run the handler, complete), without a
 * worker's own polling, which would race the test for the row.
 */
async function runJob(jobId: string, handler: JobHandler): Promise<void> {
  const workerId = newWorkerId();
  const job = await claimJob(workerId, [OCR_JOB, OCR_BACKFILL_JOB], 60_000, jobId);
  if (!job) throw new Error(`job ${jobId} was not claimable`);
  await handler.run(JSON.parse(job.payload), { job, signal: new AbortController().signal });
  expect(await completeJob(job.id, workerId)).toBe(true);
}

/** Runs the text job queued with the upload of one file. */
async function runOcrJob(fileId: string): Promise<void> {
  const job = await db().job.findUniqueOrThrow({ where: { key: ocrJobKey(fileId) } });
  await runJob(job.id, ocrJobHandler);
}

function withEnv(vars: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetEnv();
  resetOcrConfig();
}

afterEach(() => withEnv({ OCR: undefined, TESSERACT_PATH: undefined }));

let owner: TestUser;
let stranger: TestUser;
let shot: { code: string };
let gif: { code: string };

beforeAll(async () => {
  owner = await createTestUser({ plan: "ultra" });
  stranger = await createTestUser({ plan: "ultra" });
  shot = await upload(owner, await screenshot(["Error: connection refused", "while reading upstream header"]), "shot.png");
  gif = await upload(owner, await screenshot(["Deployment finished"], { dark: true, gif: true }), "loop.gif", {
    "post-privacy": "public",
  });
  await api(`/posts/${gif.code}`, { method: "PATCH", key: owner.apiKey, body: { title: "Loop" } });
  await runOcrJob((await fileOf(shot.code)).id);
  await runOcrJob((await fileOf(gif.code)).id);
});

describe("reading text", () => {
  it("the job reads an uploaded screenshot's words, lines and confidence (light and dark)", async () => {
    const text = await db().fileText.findUniqueOrThrow({ where: { fileId: (await fileOf(shot.code)).id } });
    expect(text.text).toBe("Error: connection refused\nwhile reading upstream header");
    expect(text.language).toBe("eng");
    expect(text.confidence).toBeGreaterThan(80);
    const dark = await db().fileText.findUniqueOrThrow({ where: { fileId: (await fileOf(gif.code)).id } });
    expect(dark.text).toBe("Deployment finished");
  });

  it("a photo without text yields no words", async () => {
    const noise = await sharp(Buffer.from(Array.from({ length: 200 * 150 * 3 }, (_, i) => (i * 7919) % 251)), {
      raw: { width: 200, height: 150, channels: 3 },
    })
      .png()
      .toBuffer();
    expect((await readImageText(noise, { language: "eng", timeoutMs: 30_000 })).text).toBe("");
  });

  it("the backfill reads stored images without text, and resumes after its cursor when its worker died", async () => {
    withEnv({ OCR: "off" });
    const posts = [];
    for (const word of ["alpha", "bravo", "charlie"])
      posts.push(await upload(owner, await screenshot([`backfill ${word}`]), `${word}.png`));
    const ids = await Promise.all(posts.map(async (p) => (await fileOf(p.code)).id));
    // Reading was off: no job was queued with the uploads.
    expect(await db().job.count({ where: { key: { in: ids.map(ocrJobKey) } } })).toBe(0);
    withEnv({ OCR: undefined });

    const jobId = await startOcrBackfill();
    expect(jobId).not.toBeNull();
    expect(await startOcrBackfill()).toBeNull(); // one at a time
    // A worker took it, read up to the first of these files, and died.
    const before = ids.sort()[0];
    const dead = "gone:0a1b2c3d.0a1b2c3d.1.1:abc";
    await db().job.update({
      where: { id: jobId! },
      data: {
        state: "running",
        attempts: 1,
        lockedBy: dead,
        lockedUntil: new Date(Date.now() + 60_000),
        payload: JSON.stringify({ after: before }),
      },
    });
    expect(await recoverJobs((w) => w === dead)).toMatchObject({ requeued: 1 });
    await runJob(jobId!, ocrBackfillHandler);
    const texts = await db().fileText.findMany({ where: { fileId: { in: ids } } });
    // The files after the cursor were read; the one at the cursor was not read again.
    expect(texts.map((t) => t.fileId).sort()).toEqual(ids.slice(1));
    for (const t of texts) expect(t.text).toMatch(/^backfill (alpha|bravo|charlie)$/);
  });
});

describe("search", () => {
  const codes = (body: { posts: { code: string }[] }) => body.posts.map((p) => p.code);

  it("GET /posts?search= matches the owner's read words by word prefix, on the API and Relay", async () => {
    expect(codes((await api("/posts?search=refus", { key: owner.apiKey })).body)).toEqual([shot.code]);
    expect(codes((await api("/posts?search=UPSTREAM%20conn", { key: owner.apiKey })).body)).toEqual([shot.code]);
    expect(codes((await api("/posts?search=efused", { key: owner.apiKey })).body)).toEqual([]);
    const session = owner.relayKey;
    expect(codes((await relay("/posts?search=refused", { key: session })).body)).toEqual([shot.code]);
    // A title word and a read word together.
    expect(codes((await api("/posts?search=loop%20deploy", { key: owner.apiKey })).body)).toEqual([gif.code]);
  });

  it("the dashboard's matched line: the line holding the most search words, by the same word-prefix rule", () => {
    const texts = ["Error: connection refused\nwhile reading upstream header", null, "Connection pool ready"];
    expect(matchedLine(texts, "upstream")).toBe("while reading upstream header");
    expect(matchedLine(texts, "CONN refu")).toBe("Error: connection refused");
    expect(matchedLine(texts, "pool")).toBe("Connection pool ready");
    expect(matchedLine(texts, "efused")).toBeNull();
    expect(automaticAlt(`${"word ".repeat(60)}end`)).toMatch(/^word( word)+…$/);
    expect(automaticAlt("  \n ")).toBeNull();
  });

  it("public search (GET /gifs) never matches read text, the owner's own included", async () => {
    expect(codes((await api("/gifs?search=loop", { key: stranger.apiKey })).body)).toContain(gif.code);
    for (const key of [stranger.apiKey, owner.apiKey]) {
      const reply = await api("/gifs?search=deployment", { key });
      expect(reply.status).toBe(200);
      expect(codes(reply.body)).toEqual([]);
    }
    expect(codes((await relay("/gifs?search=deployment", { key: stranger.relayKey })).body)).toEqual([]);
  });
});

describe("who sees it", () => {
  it("the file's text is in the owner's post object only", async () => {
    const own = await api(`/posts/${gif.code}`, { key: owner.apiKey });
    expect(own.body.post.files[0].text).toMatchObject({ content: "Deployment finished", language: "eng" });
    const other = await api(`/posts/${gif.code}`, { key: stranger.apiKey });
    expect(other.status).toBe(200);
    expect(other.body.post.files[0]).not.toHaveProperty("text");
    expect(other.text).not.toContain("Deployment");
    const listed = await api("/posts", { key: owner.apiKey });
    expect(listed.body.posts.find((p: { code: string }) => p.code === shot.code).files[0].text.content).toContain("refused");
  });

  it("the share page uses the start of the text as an automatic alt when there is no description", async () => {
    const result = await loadSharePost(gif.code, null, null);
    if (result.kind !== "post") throw new Error(result.kind);
    expect(result.post.files[0]).not.toHaveProperty("text");
    const html = renderToStaticMarkup(
      createElement(PostMedia, { post: result.post, title: "Loop", autoAlts: autoAltsOf(result.post.description, result.record.files) }),
    );
    expect(html).toContain('alt="Automatic description, text in the image: Deployment finished"');
    expect(html).toContain('data-alt="automatic"');
    // With a description the author's words win.
    await api(`/posts/${gif.code}`, { method: "PATCH", key: owner.apiKey, body: { description: "A deploy loop" } });
    const described = await loadSharePost(gif.code, null, null);
    if (described.kind !== "post") throw new Error(described.kind);
    expect(autoAltsOf(described.post.description, described.record.files)).toBeUndefined();
  });

  it("deleting the post deletes its text and words", async () => {
    const post = await upload(owner, await screenshot(["temporary words"]), "tmp.png");
    const file = await fileOf(post.code);
    await runOcrJob(file.id);
    expect(await db().searchWord.count({ where: { fileId: file.id, source: file.id } })).toBe(2);
    expect((await api(`/posts/${post.code}`, { method: "DELETE", key: owner.apiKey })).status).toBeLessThan(300);
    expect(await db().fileText.count({ where: { fileId: file.id } })).toBe(0);
    expect(await db().searchWord.count({ where: { fileId: file.id } })).toBe(0);
  });
});

describe("off", () => {
  it("OCR=off: uploads queue no text job, no backfill starts, /healthz says so", async () => {
    withEnv({ OCR: "off" });
    const post = await upload(owner, await screenshot(["not read"]), "off.png");
    expect(await db().job.count({ where: { key: ocrJobKey((await fileOf(post.code)).id) } })).toBe(0);
    expect(await startOcrBackfill()).toBeNull();
    expect(await (await healthz()).json()).toEqual({ status: "ok", detail: { text_reading: "off (turned off by the operator)" } });
  });

  it("no Tesseract at TESSERACT_PATH: the service runs as before and says so", async () => {
    withEnv({ TESSERACT_PATH: "/nonexistent/tesseract" });
    const post = await upload(owner, await screenshot(["still stored"]), "nobin.png");
    expect((await api(`/posts/${post.code}`, { key: owner.apiKey })).status).toBe(200);
    expect(await db().job.count({ where: { key: ocrJobKey((await fileOf(post.code)).id) } })).toBe(0);
    const res = await healthz();
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok", detail: { text_reading: "off (tesseract not installed)" } });
    expect((await describeMediaTools()).tesseract).toMatchObject({ path: null, enabled: false });
  });

  it("with Tesseract: /healthz is as before and the tools report its version", async () => {
    expect(await (await healthz()).json()).toEqual({ status: "ok" });
    expect((await describeMediaTools()).tesseract).toMatchObject({ enabled: true, off: null, version: expect.stringMatching(/^\d+\.\d+/) });
  });
});
