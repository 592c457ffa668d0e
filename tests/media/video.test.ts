import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { DomainError } from "@/lib/errors";
import { processVideo } from "@/lib/media/video";
import { ffmpeg, fixture, listDir, probeJson, removeDir, scratchDir, SECRET, topLevelBoxes, useScratchDir } from "../support/media";

const out = useScratchDir();

async function expectFastStart(path: string) {
  const boxes = await topLevelBoxes(path);
  expect(boxes[0]).toBe("ftyp");
  expect(boxes).toContain("moov");
  expect(boxes.indexOf("moov")).toBeLessThan(boxes.indexOf("mdat"));
}

describe("processVideo: remux", () => {
  it("MP4 with moov at the end → fast-start MP4, metadata stripped, thumbnail", async () => {
    const input = await fixture("mp4");
    const before = await topLevelBoxes(input);
    expect(before.indexOf("mdat")).toBeLessThan(before.indexOf("moov")); // the fixture is not fast-start
    expect((await probeJson(input)).format.tags?.title).toBe(SECRET.title);

    const result = await processVideo(input, out("a.mp4"), out("a.jpg"), { keepMetadata: false });
    expect(result).toMatchObject({ width: 320, height: 240, mime: "video/mp4", ext: "mp4", transcoded: false });
    expect(result.duration).toBeCloseTo(2, 1);
    await expectFastStart(out("a.mp4"));

    const probe = await probeJson(out("a.mp4"));
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    const tags = JSON.stringify([probe.format.tags, probe.streams.map((s) => s.tags)]);
    expect(tags).not.toContain(SECRET.title);
    expect(tags).not.toContain(SECRET.location);

    const thumb = await sharp(out("a.jpg")).metadata();
    expect(thumb.format).toBe("jpeg");
    expect(result.thumbnail).toEqual({ width: 320, height: 240, mime: "image/jpeg", size: expect.any(Number) });
    expect([thumb.width, thumb.height]).toEqual([320, 240]);
  });

  it("keepMetadata keeps the container tags", async () => {
    await processVideo(await fixture("mp4"), out("keep.mp4"), out("keep.jpg"), { keepMetadata: true });
    const probe = await probeJson(out("keep.mp4"));
    expect(probe.format.tags?.title).toBe(SECRET.title);
    expect(JSON.stringify(probe.format.tags)).toContain(SECRET.location);
    await expectFastStart(out("keep.mp4"));
  });

  it("a rotated video keeps its display rotation; sizes are reported as displayed", async () => {
    const result = await processVideo(await fixture("mp4Rotated"), out("rot.mp4"), out("rot.jpg"), { keepMetadata: false });
    expect(result).toMatchObject({ width: 240, height: 320, transcoded: false });
    const video = (await probeJson(out("rot.mp4"))).streams.find((s) => s.codec_type === "video")!;
    expect([video.width, video.height]).toEqual([320, 240]); // stored size, turned on playback
    expect(Math.abs(video.side_data_list?.[0]?.rotation ?? 0)).toBe(90);
    expect(result.thumbnail).toMatchObject({ width: 240, height: 320 }); // upright still
  });

  it.each([
    ["mov", "mov"],
    ["mkv", "matroska"],
  ] as const)("%s (H.264 + AAC) is remuxed to MP4 without its title", async (name, demuxer) => {
    const input = await fixture(name);
    expect((await probeJson(input)).format.format_name).toContain(demuxer);
    const result = await processVideo(input, out(`${name}.mp4`), out(`${name}.jpg`), { keepMetadata: false });
    expect(result).toMatchObject({ width: 320, height: 240, transcoded: false });
    expect(result.duration).toBeCloseTo(2, 1);
    await expectFastStart(out(`${name}.mp4`));
    const probe = await probeJson(out(`${name}.mp4`));
    expect(probe.format.format_name).toContain("mp4");
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    expect(JSON.stringify(probe.format.tags ?? {})).not.toContain(SECRET.title);
  });

  it("HEVC is copied with the hvc1 tag; Opus audio becomes AAC", async () => {
    const result = await processVideo(await fixture("mkvHevc"), out("hevc.mp4"), out("hevc.jpg"), { keepMetadata: false });
    expect(result.transcoded).toBe(false);
    const probe = await probeJson(out("hevc.mp4"));
    expect(probe.streams.map((s) => [s.codec_name, s.codec_tag_string])).toEqual([
      ["hevc", "hvc1"],
      ["aac", "mp4a"],
    ]);
    await expectFastStart(out("hevc.mp4"));
  });
});

describe("processVideo: transcode", () => {
  it("MPEG-2 video in MKV is transcoded to H.264 + AAC", async () => {
    const result = await processVideo(await fixture("mkvMpeg2"), out("m2.mp4"), out("m2.jpg"), { keepMetadata: false });
    expect(result).toMatchObject({ width: 320, height: 240, transcoded: true, mime: "video/mp4" });
    expect(result.duration).toBeCloseTo(2, 1);
    const probe = await probeJson(out("m2.mp4"));
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    expect(JSON.stringify(probe.format.tags ?? {})).not.toContain(SECRET.title);
    await expectFastStart(out("m2.mp4"));
    expect(result.thumbnail.size).toBeGreaterThan(0);
  });
});

describe("processVideo: WebM (issue 26 §1)", () => {
  // Chrome, Firefox and Safari all play H.264 + AAC from an MP4; VP8 plays from no MP4 and
  // VP9/AV1 in MP4 not in Safari, so those are transcoded.
  it.each([
    ["webmVp8Vorbis", 320, 240, ["h264", "aac"]],
    ["webmVp9Opus", 320, 240, ["h264", "aac"]],
    ["webmAv1", 160, 120, ["h264"]],
  ] as const)("%s → fast-start H.264 MP4, transcoded, tags stripped", async (name, width, height, codecs) => {
    const result = await processVideo(await fixture(name), out(`${name}.mp4`), out(`${name}.jpg`), { keepMetadata: false });
    expect(result).toMatchObject({ width, height, transcoded: true, mime: "video/mp4", ext: "mp4" });
    const probe = await probeJson(out(`${name}.mp4`));
    expect(probe.streams.map((s) => s.codec_name)).toEqual(codecs);
    expect(probe.streams[0]!.pix_fmt).toBe("yuv420p");
    expect(JSON.stringify([probe.format.tags, probe.streams.map((s) => s.tags)])).not.toContain(SECRET.title);
    await expectFastStart(out(`${name}.mp4`));
    expect(result.thumbnail.size).toBeGreaterThan(0);
  });

  it("H.264 in WebM is copied (remux); Opus becomes AAC", async () => {
    const result = await processVideo(await fixture("webmH264"), out("wh.mp4"), out("wh.jpg"), { keepMetadata: false });
    expect(result).toMatchObject({ width: 320, height: 240, transcoded: false });
    const probe = await probeJson(out("wh.mp4"));
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["h264", "aac"]);
    await expectFastStart(out("wh.mp4"));
  });

  it("keeps the bounds of other ffmpeg work: over the time budget → invalid_request, nothing left behind", async () => {
    const dir = await scratchDir();
    const error = await processVideo(await fixture("webmVp9Opus"), join(dir, "t.mp4"), join(dir, "t.jpg"), {
      keepMetadata: false,
      timeoutMs: 50,
    }).catch((e: unknown) => e);
    const left = await listDir(dir);
    await removeDir(dir);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).type).toBe("invalid_request");
    expect((error as DomainError).message).toMatch(/took longer than/);
    expect(left).toEqual([]);
  });
});

describe("processVideo: H.264 that browsers cannot play", () => {
  it("4:4:4 H.264 is transcoded to 4:2:0", async () => {
    const d = await scratchDir();
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=160x120:rate=10",
      "-t",
      "0.5",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv444p",
      "-f",
      "matroska",
      join(d, "444.mkv"),
    ]);
    const result = await processVideo(join(d, "444.mkv"), join(d, "out.mp4"), join(d, "out.jpg"), { keepMetadata: false });
    expect(result.transcoded).toBe(true);
    const video = (await probeJson(join(d, "out.mp4"))).streams[0] as { codec_name: string; pix_fmt?: string };
    expect([video.codec_name, video.pix_fmt]).toEqual(["h264", "yuv420p"]);
    await removeDir(d);
  });
});

describe("processVideo: thumbnails", () => {
  it("is at most 1280 px wide and comes from the first frame of a short clip", async () => {
    const d = await scratchDir();
    await ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=1600x200:rate=10",
      "-t",
      "0.5",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      join(d, "wide.mp4"),
    ]);
    const result = await processVideo(join(d, "wide.mp4"), join(d, "out.mp4"), join(d, "out.jpg"), { keepMetadata: false });
    expect(result).toMatchObject({ width: 1600, height: 200 });
    expect(result.thumbnail).toMatchObject({ width: 1280, height: 160 });
    await removeDir(d);
  });

  /** The mean brightness of a thumbnail (0 black, 255 white). */
  async function brightness(path: string): Promise<number> {
    const { channels } = await sharp(path).stats();
    return channels[0].mean;
  }

  it("of a clip of 2 s or more is the frame at 1 s, taken in the same run as the start's decode check", async () => {
    const d = await scratchDir();
    // Black for the first second, white after; one keyframe, so a still at 1 s decodes the first second.
    await ffmpeg([
      ...["-f", "lavfi", "-i", "color=c=black:size=320x240:rate=10:duration=1"],
      ...["-f", "lavfi", "-i", "color=c=white:size=320x240:rate=10:duration=2"],
      ...["-filter_complex", "[0][1]concat=n=2:v=1", "-c:v", "libx264", "-preset", "ultrafast", "-g", "100", "-pix_fmt", "yuv420p"],
      join(d, "black-white.mp4"),
    ]);
    const result = await processVideo(join(d, "black-white.mp4"), join(d, "out.mp4"), join(d, "out.jpg"), { keepMetadata: false });
    expect(result.thumbnail).toMatchObject({ width: 320, height: 240 });
    expect(await brightness(join(d, "out.jpg"))).toBeGreaterThan(200);
    await removeDir(d);
  });

  it("of a 2 s clip whose one frame is at 0 falls back to that frame", async () => {
    const d = await scratchDir();
    await ffmpeg([
      ...["-f", "lavfi", "-i", "color=c=white:size=320x240:rate=1/2", "-frames:v", "1"],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"],
      join(d, "one-frame.mp4"),
    ]);
    const result = await processVideo(join(d, "one-frame.mp4"), join(d, "out.mp4"), join(d, "out.jpg"), { keepMetadata: false });
    expect(result.duration).toBe(2);
    expect(result.thumbnail).toMatchObject({ width: 320, height: 240 });
    expect(await brightness(join(d, "out.jpg"))).toBeGreaterThan(200);
    await removeDir(d);
  });
});

describe("processVideo: bad input", () => {
  async function rejects(name: Parameters<typeof fixture>[0], opts: { timeoutMs?: number } = {}) {
    const d = await scratchDir();
    const error = await processVideo(await fixture(name), join(d, "o.mp4"), join(d, "o.jpg"), { keepMetadata: false, ...opts }).then(
      () => null,
      (e: unknown) => e,
    );
    const left = await listDir(d);
    await removeDir(d);
    expect(left).toEqual([]); // no partial output or thumbnail
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }

  it("a truncated MP4 (no moov) → invalid_request", async () => {
    const e = await rejects("truncatedMp4");
    expect(e.type).toBe("invalid_request");
    expect(e.message).toMatch(/corrupt|cannot be played/);
  });

  it("audio only → invalid_request", async () => {
    const e = await rejects("mkvAudioOnly");
    expect(e.type).toBe("invalid_request");
    expect(e.message).toMatch(/no playable video/);
  });

  it("text → invalid_request", async () => {
    expect((await rejects("textPng")).type).toBe("invalid_request");
  });

  it("over the time budget → invalid_request that names the limit", async () => {
    const e = await rejects("mkvMpeg2", { timeoutMs: 50 });
    expect(e.type).toBe("invalid_request");
    expect(e.message).toMatch(/took longer than the 0\.1 s limit/);
  });
});
