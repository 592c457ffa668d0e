/**
 * UPLOAD_FILES (issue 26 §1, docs/file-kinds.md): with `media` (the default) other types
 * answer 400 unsupported_type exactly as before; `media,text` makes text posts; `all` makes
 * every other file a `file` post, stored byte-exact, counted, hashed, served as an attachment.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resetEnv } from "@/lib/config/env";
import { ListModerator, setModerator, sha256File } from "@/lib/moderation/moderator";
import { serveCdn } from "@/lib/routes/cdn";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser } from "../support/fixtures";
import { api } from "../support/http";
import { ffmpeg, fixture } from "../support/media";
import { form, type Part } from "../support/multipart";

useTestDatabase();
useCounterStore();

let dir: string;
const files: Record<string, string> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "file-kinds-"));
  const write = async (name: string, data: string | Buffer) => {
    files[name] = join(dir, name);
    await writeFile(files[name]!, data);
  };
  await write("notes.txt", "first line\nsecond line\nthird line\n");
  await write("script", "#!/usr/bin/env python3\nprint('hi')\n");
  await write("app.ts", "export const answer: number = 42;\n");
  await write("page.html", "<!doctype html><script>alert(1)</script>\n");
  await write("latin1.txt", Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a])); // "café" in Latin-1: not UTF-8
  const zip = Buffer.concat([Buffer.from("PK\x03\x04", "latin1"), Buffer.alloc(60, 7)]);
  await write("archive.zip", zip);
  await write("big.log", Buffer.alloc(2 * 1024 * 1024 + 1, 0x61));
  await write(
    "pic.tiff",
    await sharp({ create: { width: 40, height: 30, channels: 3, background: "#3552e3" } })
      .tiff()
      .toBuffer(),
  );
  await write(
    "pic.avif",
    await sharp({ create: { width: 48, height: 32, channels: 3, background: "#e35235" } })
      .avif()
      .toBuffer(),
  );
  files["song.mp3"] = join(dir, "song.mp3");
  await ffmpeg([
    "-f",
    "lavfi",
    "-i",
    "sine=frequency=440:sample_rate=44100",
    "-t",
    "0.5",
    "-c:a",
    "libmp3lame",
    "-f",
    "mp3",
    files["song.mp3"],
  ]);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  delete process.env.UPLOAD_FILES;
  resetEnv();
});

afterEach(() => {
  setModerator(undefined);
});

function allow(value: string | undefined) {
  if (value === undefined) delete process.env.UPLOAD_FILES;
  else process.env.UPLOAD_FILES = value;
  resetEnv();
}

async function upload(parts: Part[], headers: Record<string, string> = {}) {
  const who = await createTestUser({ plan: "ultra" });
  const reply = await api("/upload", { method: "POST", key: who.apiKey, rawBody: await form(parts), headers });
  return { ...reply, who };
}

async function download(url: string) {
  const res = await serveCdn(new Request(url));
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("UPLOAD_FILES=media (the default)", () => {
  it("text, archives, audio and TIFF still answer 400 unsupported_type", async () => {
    allow(undefined);
    for (const name of ["notes.txt", "archive.zip", "song.mp3", "pic.tiff"]) {
      const reply = await upload([{ path: files[name]!, name }]);
      expect(reply.status, name).toBe(400);
      expect(reply.body.error.type).toBe("unsupported_type");
    }
  });
});

describe("UPLOAD_FILES=media,text", () => {
  it("a .txt becomes a text post: kind text, language, UTF-8 plain text on /cdn, byte-exact", async () => {
    allow("media,text");
    const reply = await upload([{ path: files["notes.txt"]!, name: "notes.txt", type: "text/plain" }]);
    expect(reply.status, reply.text).toBe(200);
    const { post } = reply.body;
    expect(post.kind).toBe("text");
    expect(post.title).toBeNull(); // the display fallback is the pages' business, not the API's
    expect(post.files[0]).toMatchObject({ name: "notes.txt", kind: "text", language: "text", mime_type: "text/plain; charset=utf-8" });
    expect(post.files[0]).toMatchObject({ width: null, height: null, thumbnail_url: null, renditions: [] });
    const file = await download(reply.body.url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(file.headers.get("content-security-policy")).toContain("sandbox");
    expect(file.headers.get("content-disposition")).toMatch(/^inline; filename="notes\.txt"/);
    expect(file.bytes.equals(await readFile(files["notes.txt"]!))).toBe(true);
  });

  it("ShareX's Text uploader (the text as a .txt file part, ShareX's user agent) makes a text post", async () => {
    allow("media,text");
    const who = await createTestUser({ plan: "ultra" });
    const body = new FormData();
    body.append("file", new Blob(["copied from the clipboard\nline two"], { type: "text/plain" }), "uxhqJ4Ffl2.txt");
    const reply = await api("/upload", {
      method: "POST",
      key: who.apiKey,
      rawBody: body,
      headers: { "post-privacy": "unlisted", "user-agent": "ShareX/16.1.0" },
    });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.post).toMatchObject({ kind: "text", privacy: "unlisted" });
    expect((await download(reply.body.url)).bytes.toString()).toBe("copied from the clipboard\nline two");
  });

  it("the language comes from the extension, else the content (a shebang)", async () => {
    allow("media,text");
    const ts = await upload([{ path: files["app.ts"]!, name: "app.ts" }]);
    expect(ts.status, ts.text).toBe(200);
    expect(ts.body.post.files[0].language).toBe("typescript");
    const script = await upload([{ path: files.script!, name: "deploy" }]);
    expect(script.body.post.files[0]).toMatchObject({ kind: "text", language: "python", name: "deploy.txt" });
  });

  it("HTML is text: shown as source, served as text/plain, never as HTML", async () => {
    allow("media,text");
    const reply = await upload([{ path: files["page.html"]!, name: "page.html", type: "text/html" }]);
    expect(reply.body.post.files[0]).toMatchObject({ kind: "text", language: "html" });
    const file = await download(reply.body.url);
    expect(file.headers.get("content-type")).toBe("text/plain; charset=utf-8");
  });

  it("not UTF-8, over 2 MiB, or binary: still unsupported_type", async () => {
    allow("media,text");
    for (const name of ["latin1.txt", "big.log", "archive.zip"]) {
      const reply = await upload([{ path: files[name]!, name }]);
      expect(reply.body.error?.type, name).toBe("unsupported_type");
    }
  });

  it("media are processed exactly as before", async () => {
    allow("media,text");
    const reply = await upload([{ path: await fixture("png") }]);
    expect(reply.body.post.files[0]).toMatchObject({ kind: "image", mime_type: "image/png", language: null });
    expect(reply.body.post.kind).toBe("image");
  });
});

describe("UPLOAD_FILES=all", () => {
  it("any other file is a file post: byte-exact, counted in the quota, an attachment under its name with nosniff and the sandbox CSP", async () => {
    allow("all");
    const reply = await upload([{ path: files["archive.zip"]!, name: "backup 2026.zip" }]);
    expect(reply.status, reply.text).toBe(200);
    const [file] = reply.body.post.files;
    expect(file).toMatchObject({ kind: "file", name: "backup_2026.zip", mime_type: "application/zip", size: 64, width: null });
    const served = await download(file.url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-disposition")).toMatch(/^attachment; filename="backup_2026\.zip"/);
    expect(served.headers.get("x-content-type-options")).toBe("nosniff");
    expect(served.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(served.bytes.equals(await readFile(files["archive.zip"]!))).toBe(true);
    const me = await api("/users/@me", { key: reply.who.apiKey });
    expect(me.body.limits.usage.used).toBe(64);
  });

  it("text over 2 MiB is a file; small text is still a text post", async () => {
    allow("all");
    const big = await upload([{ path: files["big.log"]!, name: "big.log" }]);
    expect(big.body.post.files[0]).toMatchObject({ kind: "file", name: "big.log", mime_type: "application/octet-stream" });
    const small = await upload([{ path: files["notes.txt"]!, name: "notes.txt" }]);
    expect(small.body.post.kind).toBe("text");
  });

  it("audio keeps its type for the share page's player, still as an attachment", async () => {
    allow("all");
    const reply = await upload([{ path: files["song.mp3"]!, name: "song.mp3" }]);
    expect(reply.body.post.files[0]).toMatchObject({ kind: "file", mime_type: "audio/mpeg" });
    const served = await download(reply.body.url);
    expect(served.headers.get("content-type")).toBe("audio/mpeg");
    expect(served.headers.get("content-disposition")).toMatch(/^attachment;/);
  });

  it("a TIFF (sharp reads it, the interface does not list it) gets WebP renditions; the original is the download", async () => {
    allow("all");
    const reply = await upload([{ path: files["pic.tiff"]!, name: "scan.tiff" }]);
    const [file] = reply.body.post.files;
    expect(file).toMatchObject({ kind: "file", mime_type: "image/tiff", width: 40, height: 30 });
    expect(file.thumbnail_url).toMatch(/\/r\/320\/scan\.tiff\.webp/);
    const preview = await download(file.thumbnail_url);
    expect(preview.status).toBe(200);
    expect(preview.headers.get("content-type")).toBe("image/webp");
    expect((await sharp(preview.bytes).metadata()).format).toBe("webp");
    const original = await download(file.url);
    expect(original.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(original.bytes.equals(await readFile(files["pic.tiff"]!))).toBe(true);
  });

  it("an AVIF (sharp reads it, the interface does not list it) gets WebP renditions too; the original is the download", async () => {
    allow("all");
    const reply = await upload([{ path: files["pic.avif"]!, name: "photo.avif" }]);
    const [file] = reply.body.post.files;
    expect(file).toMatchObject({ kind: "file", mime_type: "image/avif", width: 48, height: 32 });
    expect(file.thumbnail_url).toMatch(/\/r\/320\/photo\.avif\.webp/);
    const preview = await download(file.thumbnail_url);
    expect(preview.headers.get("content-type")).toBe("image/webp");
    expect((await sharp(preview.bytes).metadata()).format).toBe("webp");
    const original = await download(file.url);
    expect(original.headers.get("content-disposition")).toMatch(/^attachment;/);
    expect(original.bytes.equals(await readFile(files["pic.avif"]!))).toBe(true);
  });

  it("files are hashed for moderation like media: a blocklisted file quarantines its post", async () => {
    allow("all");
    setModerator(new ListModerator([], [await sha256File(files["archive.zip"]!)]));
    const reply = await upload([{ path: files["archive.zip"]!, name: "a.zip" }], { "post-privacy": "public" });
    expect(reply.body.post.moderated).toBe(true);
  });
});
