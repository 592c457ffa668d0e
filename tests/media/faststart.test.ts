/**
 * The in-place fast start (lib/media/faststart.ts) on real MP4s written by ffmpeg: the
 * output must decode to exactly the same frames and samples as the input, with the moov in
 * front and the metadata gone; anything outside the simple case must be refused untouched.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, readFile, stat, writeFile } from "node:fs/promises";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { fastStart } from "@/lib/media/faststart";
import { processVideo } from "@/lib/media/video";
import { ffmpeg, fixture, FIXTURE_FFMPEG, probeJson, SECRET, topLevelBoxes, useScratchDir } from "../support/media";

const run = promisify(execFile);
const at = useScratchDir();
const sha = async (path: string) =>
  createHash("sha256")
    .update(await readFile(path))
    .digest("hex");

/** Per-packet hashes of every stream: equal lists mean the same media, whatever the container layout. */
async function packetHashes(path: string): Promise<string> {
  const { stdout } = await run(FIXTURE_FFMPEG, ["-v", "error", "-i", path, "-map", "0", "-c", "copy", "-f", "framemd5", "-"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .split("\n")
    .filter((l) => l && !l.startsWith("#"))
    .join("\n");
}

/** Every tag ffprobe sees, container and streams (creation_time included). */
async function allTags(path: string): Promise<string> {
  const probe = await probeJson(path);
  return JSON.stringify([probe.format.tags ?? {}, probe.streams.map((s) => s.tags ?? {})]);
}

async function scratchCopy(name: string, fixtureName: "mp4" | "mp4Silent" | "mp4Rotated"): Promise<string> {
  const path = at(name);
  await copyFile(await fixture(fixtureName), path);
  return path;
}

/** The fixture with its moov moved to the front by ffmpeg, metadata kept. */
async function moovFirstWithMetadata(name: string): Promise<string> {
  const path = at(name);
  await ffmpeg([
    "-i",
    await fixture("mp4"),
    "-map",
    "0",
    "-c",
    "copy",
    "-map_metadata",
    "0",
    "-movflags",
    "+faststart+use_metadata_tags",
    path,
  ]);
  return path;
}

async function expectCleanFastStart(output: string, reference: string): Promise<void> {
  const boxes = await topLevelBoxes(output);
  expect(boxes[0]).toBe("ftyp");
  expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
  expect(boxes.filter((b) => b === "moov")).toHaveLength(1);
  expect(await packetHashes(output)).toBe(await packetHashes(reference));
  const tags = await allTags(output);
  expect(tags).not.toContain(SECRET.title);
  expect(tags).not.toContain("creation_time");
  // Not even the raw bytes: the boxes that held them are zero-filled.
  const bytes = await readFile(output);
  expect(bytes.includes(Buffer.from(SECRET.title))).toBe(false);
  expect(bytes.includes(Buffer.from(SECRET.location))).toBe(false);
}

describe("fastStart: moov at the end", () => {
  it("consuming a temp file: the gap is inserted in place (same inode where the filesystem can), offsets moved, metadata zeroed", async () => {
    const reference = await fixture("mp4");
    expect((await readFile(reference)).includes(Buffer.from(SECRET.title))).toBe(true);
    const input = await scratchCopy("end-consume.mp4", "mp4");
    const inode = (await stat(input)).ino;
    const ok = await fastStart(input, at("end-consume.out"), { keepMetadata: false, withAudio: true, consumeInput: true });
    expect(ok).toBe(true);
    await expectCleanFastStart(at("end-consume.out"), reference);
    await expect(stat(input)).rejects.toThrow(); // moved
    // Never copied: the gap inserted where fallocate can (ext4, XFS), the media shifted within the file elsewhere.
    expect((await stat(at("end-consume.out"))).ino).toBe(inode);
  });

  it("without insert-range (tmpfs, btrfs) the media is shifted in place: the same media, no second copy of the file", async () => {
    const reference = await fixture("mp4");
    const input = await scratchCopy("end-copy.mp4", "mp4");
    const inode = (await stat(input)).ino;
    const size = (await stat(input)).size;
    const ok = await fastStart(input, at("end-copy.out"), { keepMetadata: false, withAudio: true, consumeInput: true, insertRange: false });
    expect(ok).toBe(true);
    await expectCleanFastStart(at("end-copy.out"), reference);
    await expect(stat(input)).rejects.toThrow();
    const out = await stat(at("end-copy.out"));
    expect(out.ino).toBe(inode);
    expect(out.size).toBe(size);
  });

  it("without consumeInput the input is left byte for byte as it was", async () => {
    const input = await scratchCopy("end-keep-input.mp4", "mp4");
    const before = await sha(input);
    expect(await fastStart(input, at("end-keep-input.out"), { keepMetadata: false, withAudio: true, consumeInput: false })).toBe(true);
    expect(await sha(input)).toBe(before);
    await expectCleanFastStart(at("end-keep-input.out"), input);
  });

  it("keepMetadata keeps the tags", async () => {
    const input = await scratchCopy("end-meta.mp4", "mp4");
    expect(await fastStart(input, at("end-meta.out"), { keepMetadata: true, withAudio: true, consumeInput: true })).toBe(true);
    const probe = await probeJson(at("end-meta.out"));
    expect(probe.format.tags?.title).toBe(SECRET.title);
    expect(await packetHashes(at("end-meta.out"))).toBe(await packetHashes(await fixture("mp4")));
  });

  it("video only, and the display rotation survives", async () => {
    const silent = await scratchCopy("silent.mp4", "mp4Silent");
    expect(await fastStart(silent, at("silent.out"), { keepMetadata: false, withAudio: false, consumeInput: true })).toBe(true);
    expect(await packetHashes(at("silent.out"))).toBe(await packetHashes(await fixture("mp4Silent")));

    const rotated = await scratchCopy("rot.mp4", "mp4Rotated");
    expect(await fastStart(rotated, at("rot.out"), { keepMetadata: false, withAudio: true, consumeInput: true })).toBe(true);
    const video = (await probeJson(at("rot.out"))).streams.find((s) => s.codec_type === "video");
    expect(Math.abs(video?.side_data_list?.[0]?.rotation ?? 0)).toBe(90);
  });
});

describe("fastStart: moov already in front", () => {
  it("edits the moov where it is: tags and times gone, media identical", async () => {
    const input = await moovFirstWithMetadata("first.mp4");
    expect(await allTags(input)).toContain(SECRET.title);
    const reference = at("first-ref.mp4");
    await copyFile(input, reference);
    expect(await fastStart(input, at("first.out"), { keepMetadata: false, withAudio: true, consumeInput: true })).toBe(true);
    await expectCleanFastStart(at("first.out"), reference);
  });

  it("copies first when the input is not to be consumed", async () => {
    const input = await moovFirstWithMetadata("first-keep.mp4");
    const before = await sha(input);
    expect(await fastStart(input, at("first-keep.out"), { keepMetadata: false, withAudio: true, consumeInput: false })).toBe(true);
    expect(await sha(input)).toBe(before);
    await expectCleanFastStart(at("first-keep.out"), input);
  });
});

describe("fastStart: not the simple case → false, nothing written", () => {
  const refused: Array<[string, string[], boolean]> = [
    ["a fragmented MP4", ["-c", "copy", "-movflags", "frag_keyframe+empty_moov"], true],
    ["two audio tracks", ["-map", "0:v", "-map", "0:a", "-map", "0:a", "-c", "copy"], true],
    ["a subtitle track", ["-f", "lavfi", "-i", "anullsrc", "-map", "0", "-c", "copy", "-c:s", "mov_text"], true],
    ["MPEG-4 Part 2 video (mp4v)", ["-c:v", "mpeg4", "-c:a", "copy"], true],
  ];
  it.each(refused)("%s", async (label, args, withAudio) => {
    const name = label.replace(/\W+/g, "-");
    const input = at(`${name}.mp4`);
    if (label === "a subtitle track") {
      // An SRT next to the clip becomes a mov_text track.
      const srt = at(`${name}.srt`);
      await writeFile(srt, "1\n00:00:00,000 --> 00:00:01,000\nhello\n");
      await ffmpeg(["-i", await fixture("mp4"), "-i", srt, "-map", "0", "-map", "1", "-c", "copy", "-c:s", "mov_text", input]);
    } else {
      await ffmpeg(["-i", await fixture("mp4"), ...args, input]);
    }
    const before = await sha(input);
    expect(await fastStart(input, at(`${name}.out`), { keepMetadata: false, withAudio, consumeInput: true })).toBe(false);
    expect(await sha(input)).toBe(before);
    await expect(stat(at(`${name}.out`))).rejects.toThrow();
  });

  it("a truncated file (no moov)", async () => {
    const input = at("trunc.mp4");
    await copyFile(await fixture("truncatedMp4"), input);
    expect(await fastStart(input, at("trunc.out"), { keepMetadata: false, withAudio: true, consumeInput: true })).toBe(false);
  });
});

describe("processVideo with consumeInput", () => {
  it("an MP4 that needs no remux is not remuxed: the output is the input file (whatever the filesystem), fast start, clean, with a thumbnail", async () => {
    const input = await scratchCopy("pv.mp4", "mp4");
    const inode = (await stat(input)).ino;
    const result = await processVideo(input, at("pv.out"), at("pv.jpg"), { keepMetadata: false, consumeInput: true });
    expect(result).toMatchObject({ width: 320, height: 240, transcoded: false, mime: "video/mp4" });
    expect((await stat(at("pv.out"))).ino).toBe(inode);
    await expectCleanFastStart(at("pv.out"), await fixture("mp4"));
    expect(result.thumbnail.size).toBeGreaterThan(0);
  });
});
