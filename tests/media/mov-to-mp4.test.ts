/**
 * MOV → MP4 without a remux (lib/media/mov-to-mp4.ts) on real QuickTime files written by
 * ffmpeg: the output must decode to exactly the same frames and samples, be an ISO MP4
 * (brand isom) with the moov in front and no metadata; anything outside the simple case must
 * be refused untouched, and /convert and uploads must still give what they gave through ffmpeg.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFile, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it, vi } from "vitest";
import { resetMediaConfig } from "@/lib/media/config";
import { convertFile } from "@/lib/media/convert";
import { DomainError } from "@/lib/errors";
import { movToMp4 } from "@/lib/media/mov-to-mp4";
import { sniffFile } from "@/lib/media/sniff";
import { processVideo } from "@/lib/media/video";
import { ffmpeg, fixture, FIXTURE_FFMPEG, insertsRanges, probeJson, SECRET, topLevelBoxes, useScratchDir } from "../support/media";

const run = promisify(execFile);
const at = useScratchDir();
const sha = async (path: string) =>
  createHash("sha256")
    .update(await readFile(path))
    .digest("hex");

/** framemd5 of every stream, decoded (`decoded`) or as packets: equal lists mean the same media. */
async function hashes(path: string, decoded: boolean): Promise<string> {
  const codec = decoded ? [] : ["-c", "copy"];
  const { stdout } = await run(FIXTURE_FFMPEG, ["-v", "error", "-i", path, "-map", "0", ...codec, "-f", "framemd5", "-"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .split("\n")
    .filter((l) => l && !l.startsWith("#"))
    .join("\n");
}

/** A MOV written by ffmpeg: 2 s of 320x240 H.264, a sine wave (AAC unless `audio` says otherwise), title and location tags. */
async function makeMov(name: string, audio: string[] = ["-c:a", "aac"], extra: string[] = []): Promise<string> {
  const path = at(name);
  const sine = audio.length ? ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"] : [];
  await ffmpeg([
    ...["-f", "lavfi", "-i", "testsrc2=size=320x240:rate=30", ...sine, "-t", "2"],
    ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", ...audio],
    ...["-metadata", `title=${SECRET.title}`, "-metadata", `location=${SECRET.location}`, ...extra, "-f", "mov", path],
  ]);
  return path;
}

/** A scratch copy of `path` to hand over (consumeInput). */
async function copyOf(path: string, name: string): Promise<string> {
  await copyFile(path, at(name));
  return at(name);
}

async function expectMp4Of(output: string, reference: string, codecs: string[]): Promise<void> {
  const boxes = await topLevelBoxes(output);
  expect(boxes.slice(0, 2)).toEqual(["ftyp", "moov"]);
  expect(boxes.filter((b) => b === "moov" || b === "mdat")).toEqual(["moov", "mdat"]);
  const [probe, before] = [await probeJson(output), await probeJson(reference)];
  expect(probe.format.format_name).toBe("mov,mp4,m4a,3gp,3g2,mj2");
  expect(probe.format.tags?.major_brand).toBe("isom");
  expect(probe.format.tags?.compatible_brands).toBe("isomiso2avc1mp41");
  expect(probe.streams.map((s) => s.codec_name)).toEqual(codecs);
  expect(probe.format.duration).toBe(before.format.duration);
  expect(await hashes(output, false)).toBe(await hashes(reference, false));
  expect(await hashes(output, true)).toBe(await hashes(reference, true));
  const tags = JSON.stringify([probe.format.tags, probe.streams.map((s) => s.tags)]);
  expect(tags).not.toContain("creation_time");
  const bytes = await readFile(output);
  for (const secret of [SECRET.title, SECRET.location]) expect(bytes.includes(Buffer.from(secret))).toBe(false);
}

describe("movToMp4: moov at the end (ffmpeg's and cameras' layout)", () => {
  it("consuming a temp file: the head goes into a gap inserted at the start (same inode where the filesystem can)", async () => {
    const reference = await makeMov("end.mov");
    expect((await topLevelBoxes(reference)).slice(0, 4)).toEqual(["ftyp", "wide", "mdat", "moov"]);
    const input = await copyOf(reference, "end-consume.mov");
    const inode = (await stat(input)).ino;
    expect(await movToMp4(input, at("end-consume.mp4"), { keepMetadata: false, withAudio: true, consumeInput: true })).toBe(true);
    await expectMp4Of(at("end-consume.mp4"), reference, ["h264", "aac"]);
    await expect(stat(input)).rejects.toThrow(); // moved
    expect((await stat(at("end-consume.mp4"))).ino === inode).toBe(await insertsRanges(dirname(input)));
  });

  it("the single-pass copy (filesystems without insert-range) gives the same media", async () => {
    const reference = await makeMov("end-copy-ref.mov");
    const input = await copyOf(reference, "end-copy.mov");
    const opts = { keepMetadata: false, withAudio: true, consumeInput: true, insertRange: false };
    expect(await movToMp4(input, at("end-copy.mp4"), opts)).toBe(true);
    await expectMp4Of(at("end-copy.mp4"), reference, ["h264", "aac"]);
    await expect(stat(input)).rejects.toThrow();
  });

  it("without consumeInput the input is left byte for byte as it was", async () => {
    const input = await makeMov("keep-input.mov");
    const before = await sha(input);
    expect(await movToMp4(input, at("keep-input.mp4"), { keepMetadata: false, withAudio: true, consumeInput: false })).toBe(true);
    expect(await sha(input)).toBe(before);
    await expectMp4Of(at("keep-input.mp4"), input, ["h264", "aac"]);
  });

  it("video only", async () => {
    const reference = await makeMov("silent.mov", []);
    const input = await copyOf(reference, "silent-in.mov");
    expect(await movToMp4(input, at("silent.mp4"), { keepMetadata: false, withAudio: false, consumeInput: true })).toBe(true);
    await expectMp4Of(at("silent.mp4"), reference, ["h264"]);
  });

  it("MP3 audio (`.mp3` in QuickTime) becomes `mp4a` with the esds ffmpeg writes for it", async () => {
    const reference = await makeMov("mp3.mov", ["-c:a", "libmp3lame"]);
    expect((await probeJson(reference)).streams[1].codec_tag_string).toBe(".mp3");
    expect(await movToMp4(reference, at("mp3.mp4"), { keepMetadata: false, withAudio: true, consumeInput: false })).toBe(true);
    await expectMp4Of(at("mp3.mp4"), reference, ["h264", "mp3"]);
    const remuxed = at("mp3-remuxed.mp4");
    await ffmpeg(["-i", reference, "-map", "0", "-c", "copy", "-map_metadata", "-1", "-f", "mp4", remuxed]);
    const esds = async (path: string) => {
      const bytes = await readFile(path);
      const start = bytes.indexOf("esds", 0, "latin1") - 4;
      return bytes.subarray(start, start + bytes.readUInt32BE(start)).toString("hex");
    };
    expect(await esds(at("mp3.mp4"))).toBe(await esds(remuxed));
    expect((await probeJson(at("mp3.mp4"))).streams[1].codec_tag_string).toBe("mp4a");
  });

  it("the display rotation survives", async () => {
    const rotated = at("rot.mov");
    await ffmpeg(["-i", await makeMov("rot-src.mov"), "-c", "copy", "-metadata:s:v:0", "rotate=270", "-f", "mov", rotated]);
    expect(await movToMp4(rotated, at("rot.mp4"), { keepMetadata: false, withAudio: true, consumeInput: false })).toBe(true);
    const video = (await probeJson(at("rot.mp4"))).streams.find((s) => s.codec_type === "video");
    expect(Math.abs(video?.side_data_list?.[0]?.rotation ?? 0)).toBe(90);
  });
});

describe("movToMp4: moov already in front", () => {
  it("the MP4 head fits where the QuickTime one was: written over it, nothing moves, the rest zero-filled", async () => {
    const reference = at("first.mov");
    await ffmpeg([
      "-i",
      await makeMov("first-src.mov"),
      "-map",
      "0",
      "-c",
      "copy",
      "-map_metadata",
      "0",
      "-movflags",
      "+faststart",
      reference,
    ]);
    const layout = await topLevelBoxes(reference);
    expect(layout.indexOf("moov")).toBeLessThan(layout.indexOf("mdat"));
    const input = await copyOf(reference, "first-in.mov");
    const inode = (await stat(input)).ino;
    expect(await movToMp4(input, at("first.mp4"), { keepMetadata: false, withAudio: true, consumeInput: true })).toBe(true);
    expect((await stat(at("first.mp4"))).ino).toBe(inode);
    expect(await topLevelBoxes(at("first.mp4"))).toEqual(["ftyp", "moov", "free", "mdat"]);
    await expectMp4Of(at("first.mp4"), reference, ["h264", "aac"]);
  });
});

describe("movToMp4: not the simple case → false, nothing written", () => {
  const refused: Array<[string, () => Promise<string>, boolean]> = [
    ["PCM audio", () => makeMov("pcm.mov", ["-c:a", "pcm_s16le"]), true],
    ["two audio tracks", async () => twoAudioTracks(await makeMov("two-src.mov")), true],
    ["a timecode track", () => makeMov("tmcd.mov", ["-c:a", "aac"], ["-timecode", "00:00:00:00"]), true],
    ["an MP4 (brand isom)", () => fixture("mp4"), true],
    ["the track count the caller expects differs", () => makeMov("no-audio-expected.mov"), false],
  ];
  it.each(refused)("%s", async (label, make, withAudio) => {
    const input = await copyOf(await make(), `${label.replace(/\W+/g, "-")}.in`);
    const before = await sha(input);
    const output = at(`${label.replace(/\W+/g, "-")}.out`);
    expect(await movToMp4(input, output, { keepMetadata: false, withAudio, consumeInput: true })).toBe(false);
    expect(await sha(input)).toBe(before);
    await expect(stat(output)).rejects.toThrow();
  });

  it("keepMetadata (QuickTime tags are ffmpeg's to translate)", async () => {
    const input = await makeMov("meta.mov");
    expect(await movToMp4(input, at("meta.mp4"), { keepMetadata: true, withAudio: true, consumeInput: true })).toBe(false);
    await expect(stat(at("meta.mp4"))).rejects.toThrow();
  });

  it("a truncated MOV (no moov) and one whose moov is garbage", async () => {
    const whole = await readFile(await makeMov("whole.mov"));
    const truncated = at("truncated.mov");
    await writeFile(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
    expect(await movToMp4(truncated, at("truncated.mp4"), { keepMetadata: false, withAudio: true, consumeInput: true })).toBe(false);
    const garbage = at("garbage.mov");
    await writeFile(garbage, corruptMoov(whole));
    expect(await movToMp4(garbage, at("garbage.mp4"), { keepMetadata: false, withAudio: true, consumeInput: true })).toBe(false);
  });
});

async function twoAudioTracks(source: string): Promise<string> {
  const path = at("two.mov");
  await ffmpeg(["-i", source, "-map", "0:v", "-map", "0:a", "-map", "0:a", "-c", "copy", "-f", "mov", path]);
  return path;
}

/** The file with the bytes inside its moov (after mvhd) overwritten: box sizes that overrun. */
function corruptMoov(file: Buffer): Buffer {
  const out = Buffer.from(file);
  const moov = out.indexOf("moov", 0, "latin1") - 4;
  out.fill(0xff, moov + 8 + 108 + 8, moov + 8 + 108 + 64);
  return out;
}

describe("convertFile and processVideo with a MOV", () => {
  it("/convert: an H.264 + AAC MOV becomes an MP4 with no ffmpeg at all", async () => {
    const reference = await makeMov("convert.mov");
    const input = await copyOf(reference, "convert-in.mov");
    const source = (await sniffFile(input))!;
    expect(source.format).toBe("mov");
    vi.stubEnv("FFMPEG_PATH", "/nonexistent/ffmpeg"); // a remux would fail to start
    resetMediaConfig();
    try {
      const result = await convertFile(input, at("convert.mp4"), { source, target: "mp4", consumeInput: true });
      expect(result).toEqual({ mime: "video/mp4", ext: "mp4", size: (await stat(at("convert.mp4"))).size });
    } finally {
      vi.unstubAllEnvs();
      resetMediaConfig();
    }
    await expectMp4Of(at("convert.mp4"), reference, ["h264", "aac"]);
  });

  it("/convert: a MOV with PCM audio still goes through ffmpeg (audio encoded to AAC)", async () => {
    const input = await makeMov("convert-pcm.mov", ["-c:a", "pcm_s16le"]);
    const result = await convertFile(input, at("convert-pcm.mp4"), { source: (await sniffFile(input))!, target: "mp4" });
    expect(result.mime).toBe("video/mp4");
    const probe = await probeJson(at("convert-pcm.mp4"));
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    expect(probe.format.tags?.major_brand).toBe("isom");
  });

  it("/convert: a MOV whose moov is garbage → invalid_request, as before", async () => {
    const input = at("convert-garbage.mov");
    await writeFile(input, corruptMoov(await readFile(await makeMov("convert-garbage-src.mov"))));
    const source = (await sniffFile(input))!;
    expect(source.format).toBe("mov");
    const e = await convertFile(input, at("convert-garbage.mp4"), { source, target: "mp4" }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect((e as DomainError).type).toBe("invalid_request");
    await expect(stat(at("convert-garbage.mp4"))).rejects.toThrow();
  });

  it("upload: not remuxed, clean, with a thumbnail; include-metadata still goes through ffmpeg and keeps the title", async () => {
    const reference = await makeMov("upload.mov");
    const input = await copyOf(reference, "upload-in.mov");
    const result = await processVideo(input, at("upload.mp4"), at("upload.jpg"), {
      keepMetadata: false,
      consumeInput: true,
      format: "mov",
    });
    expect(result).toMatchObject({ width: 320, height: 240, transcoded: false, mime: "video/mp4" });
    expect(result.duration).toBeCloseTo(2, 1);
    expect(result.thumbnail.size).toBeGreaterThan(0);
    await expectMp4Of(at("upload.mp4"), reference, ["h264", "aac"]);

    await processVideo(reference, at("upload-meta.mp4"), at("upload-meta.jpg"), { keepMetadata: true });
    expect((await probeJson(at("upload-meta.mp4"))).format.tags?.title).toBe(SECRET.title);
  });
});
