/**
 * Issue 39 §5: odd media answered as the interface says. A video cut short or with flipped
 * bytes is a corrupt or unplayable video, `invalid_request` (interface.md, "Partial upload
 * failures"), found by decoding its first and last second; an intact one is stored. A refused
 * type's message names what the file is. Media made here with ffmpeg and sharp; the real
 * upload endpoint, database and storage.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { kindFromHead } from "@/lib/media/kind-name";
import { useTestDatabase } from "../support/db";
import { useCounterStore } from "../support/counters";
import { createTestUser, type TestUser } from "../support/fixtures";
import { api } from "../support/http";
import { ffmpeg } from "../support/media";

useTestDatabase();
useCounterStore({ perTest: true });
vi.setConfig({ testTimeout: 120_000 });

let dir: string;
let clip: Buffer;
let user: TestUser;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "odd-media-"));
  // A phone-like clip: 6 s of H.264 + AAC, moov at the front (so a cut copy still has its index).
  const out = join(dir, "clip.mp4");
  await ffmpeg([
    ...["-f", "lavfi", "-i", "testsrc2=s=640x360:r=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6"],
    ...["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-movflags", "+faststart", out],
  ]);
  clip = await readFile(out);
  user = await createTestUser({ plan: "plus" });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function uploadBytes(bytes: Buffer, name: string, type = "video/mp4") {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)], { type }), name);
  return api("/upload", { method: "POST", key: user.apiKey, rawBody: form, headers: { priority: "false" } });
}

/** The clip with bytes inverted from `from` (a fraction of the file) on, `count` of them spread out. */
function flipped(from: number, count: number): Buffer {
  const copy = Buffer.from(clip);
  const start = Math.floor(copy.length * from);
  const step = Math.floor((copy.length - start) / count);
  for (let i = 0; i < count; i++) copy[start + i * step] ^= 0xff;
  return copy;
}

describe("corrupt videos are invalid_request", () => {
  it("an intact clip is stored", async () => {
    const reply = await uploadBytes(clip, "clip.mp4");
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.post.files[0].mime_type).toBe("video/mp4");
  });

  for (const [name, bytes] of [
    ["cut at 10 %", () => clip.subarray(0, Math.floor(clip.length * 0.1))],
    ["cut at 50 %", () => clip.subarray(0, Math.floor(clip.length * 0.5))],
    ["cut at 90 %", () => clip.subarray(0, Math.floor(clip.length * 0.9))],
    ["byte-flipped throughout", () => flipped(0.1, 200)],
    ["byte-flipped in its last fifth", () => flipped(0.8, 40)],
  ] as const) {
    it(`a clip ${name} is refused, nothing stored`, async () => {
      const before = await countPosts();
      const reply = await uploadBytes(bytes(), "clip.mp4");
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.error.type).toBe("invalid_request");
      expect(reply.body.error.message).toMatch(/corrupt|cut short|decode|playable/);
      expect(await countPosts()).toBe(before);
    });
  }
});

describe("a refused type's message names what the file is", () => {
  it("an AVIF image, an audio-only M4A, a PDF, a text file", async () => {
    const avif = await sharp({ create: { width: 64, height: 64, channels: 3, background: { r: 200, g: 30, b: 30 } } })
      .avif()
      .toBuffer();
    const m4aPath = join(dir, "voice.m4a");
    await ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "1", "-c:a", "aac", "-f", "ipod", m4aPath]);
    const cases: [Buffer, string, RegExp][] = [
      [avif, "photo.avif", /this is an AVIF image\./],
      [await readFile(m4aPath), "voice.m4a", /this is an audio-only M4A\./],
      [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n", "latin1"), "doc.pdf", /this is a PDF document\./],
      [Buffer.from("just some notes\n"), "notes.txt", /this is a text file\./],
    ];
    for (const [bytes, name, expected] of cases) {
      const reply = await uploadBytes(bytes, name, "application/octet-stream");
      expect(reply.status, `${name}: ${reply.text}`).toBe(400);
      expect(reply.body.error.type).toBe("unsupported_type");
      expect(reply.body.error.message).toMatch(expected);
      // What is accepted is still said.
      expect(reply.body.error.message).toContain("PNG, JPEG, WebP, GIF, MP4, MOV, MKV or WebM");
    }
  });

  it("names other kinds from their first bytes, and admits when it does not know", () => {
    expect(kindFromHead(Buffer.from("RIFF\0\0\0\0AVI LIST", "latin1"))).toBe("an AVI video");
    expect(kindFromHead(Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe("an SVG image");
    expect(kindFromHead(Buffer.from("MZ\x90\0", "latin1"))).toBe("a Windows program");
    expect(kindFromHead(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]))).toBeNull();
  });

  it("an MP4 with sound and no picture says it is audio only", async () => {
    const path = join(dir, "sound.mp4");
    await ffmpeg(["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "1", "-c:a", "aac", "-f", "mp4", path]);
    const bytes = await readFile(path);
    await writeFile(path, bytes);
    const reply = await uploadBytes(bytes, "sound.mp4");
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.error.message).toMatch(/audio only|no playable video/i);
  });
});

async function countPosts(): Promise<number> {
  const { db } = await import("@/lib/db/client");
  return db().post.count({ where: { userId: user.id } });
}
