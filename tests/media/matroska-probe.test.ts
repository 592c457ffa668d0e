/**
 * The Matroska reader (lib/media/matroska-probe.ts) against ffprobe on real files written by
 * ffmpeg: the same stream numbers, codecs, picture sizes, pixel formats and duration, and the
 * same remux/transcode decisions; what it cannot say for certain (no Duration, attachments,
 * broken elements) goes to ffprobe. Then /convert and uploads of an MKV run with no ffprobe.
 */
import { readFile, writeFile } from "node:fs/promises";
import { crc32 } from "node:zlib";
import { afterEach, describe, expect, it, vi } from "vitest";
import { resetMediaConfig } from "@/lib/media/config";
import { convertFile } from "@/lib/media/convert";
import { runFfprobe } from "@/lib/media/ffmpeg";
import { probeMatroska } from "@/lib/media/matroska-probe";
import type { ProbeResult } from "@/lib/media/probe";
import { probeInput } from "@/lib/media/probe-input";
import { sniffFile } from "@/lib/media/sniff";
import { mediaTools } from "@/lib/media/tools";
import { CONVERT_COPY_VIDEO, planMp4, processVideo, UPLOAD_COPY_VIDEO } from "@/lib/media/video";
import { ffmpeg, fixture, useScratchDir } from "../support/media";

const at = useScratchDir();

afterEach(() => {
  vi.unstubAllEnvs();
  resetMediaConfig();
});

const VIDEO = (size = "160x120", rate = 25) => ["-f", "lavfi", "-i", `testsrc=size=${size}:rate=${rate}`];
const AUDIO = ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"];
const X264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];

/** A file generated once per test run into the scratch directory. */
const made = new Map<string, Promise<string>>();
function media(name: string, args: string[]): Promise<string> {
  let p = made.get(name);
  if (!p) {
    p = ffmpeg([...args, at(name)]).then(() => at(name));
    made.set(name, p);
  }
  return p;
}

/** What a decision is made on; the duration to the microsecond, as ffprobe prints it. */
function essentials(probe: ProbeResult) {
  return {
    formatName: probe.formatName,
    duration: probe.duration,
    size: probe.size,
    streams: probe.streams.map((s) => ({
      index: s.index,
      codecType: s.codecType,
      codecName: s.codecName,
      codecTag: s.codecTag,
      // Set by the reader for H.264 and HEVC only: the copy decision reads it for nothing else.
      pixFmt: s.codecName === "h264" || s.codecName === "hevc" ? s.pixFmt : undefined,
      width: s.width,
      height: s.height,
      rotation: s.rotation,
      attachedPic: s.attachedPic,
      duration: s.duration,
    })),
  };
}

function decisions(probe: ProbeResult) {
  if (!probe.streams.some((s) => s.codecType === "video")) return null;
  const upload = planMp4(probe, UPLOAD_COPY_VIDEO, "matroska");
  const convert = planMp4(probe, CONVERT_COPY_VIDEO, "matroska");
  return {
    video: upload.video.index,
    audio: upload.audio?.index,
    upload: [upload.copyVideo, upload.copyAudio],
    convert: convert.copyVideo,
  };
}

async function expectSameAsFfprobe(path: string): Promise<ProbeResult> {
  const read = await probeMatroska(path);
  expect(read).not.toBeNull();
  const probed = await runFfprobe(path, { demuxer: "matroska" });
  expect(essentials(read!)).toEqual(essentials(probed));
  expect(decisions(read!)).toEqual(decisions(probed));
  return read!;
}

/** Top-level elements of the Segment of an ffmpeg-written file: [id, start, size-field start, size-field length, data start, end]. */
type Top = { id: number; start: number; sizeAt: number; sizeLength: number; dataStart: number; end: number };
function vint(b: Buffer, i: number, keep: boolean): [number, number] {
  const length = Math.clz32(b[i]) - 23;
  let value = keep ? b[i] : b[i] & (0xff >> length);
  for (let k = 1; k < length; k++) value = value * 256 + b[i + k];
  return [length, value];
}
function element(b: Buffer, start: number): Top {
  const [idLength, id] = vint(b, start, true);
  const [sizeLength, size] = vint(b, start + idLength, false);
  const dataStart = start + idLength + sizeLength;
  return { id, start, sizeAt: start + idLength, sizeLength, dataStart, end: dataStart + size };
}
function layout(b: Buffer): { segment: Top; top: Top[] } {
  const ebml = element(b, 0);
  const segment = element(b, ebml.end);
  const top: Top[] = [];
  for (let i = segment.dataStart; i < b.length; ) {
    const el = element(b, i);
    top.push(el);
    i = el.end;
  }
  return { segment, top };
}
/** An EBML element with an 8-byte size. */
function ebml(id: number, data: Buffer): Buffer {
  const idBytes = Buffer.from(id.toString(16).padStart(id > 0xffffff ? 8 : id > 0xffff ? 6 : id > 0xff ? 4 : 2, "0"), "hex");
  const size = Buffer.alloc(8);
  size.writeBigUInt64BE(BigInt(data.length) | (1n << 56n));
  return Buffer.concat([idBytes, size, data]);
}
const uintData = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
/** A SeekHead of 8-byte positions (its size does not depend on them). */
const seekHead = (entries: [number, number][]) =>
  ebml(
    0x114d9b74,
    Buffer.concat(
      entries.map(([id, position]) =>
        ebml(0x4dbb, Buffer.concat([ebml(0x53ab, Buffer.from(id.toString(16), "hex")), ebml(0x53ac, uintData(position))])),
      ),
    ),
  );

/** Recomputes the CRC-32 element (first child, when there is one) of the top-level element `id` after an edit. */
function fixCrc(bytes: Buffer, id: number): void {
  const el = layout(bytes).top.find((e) => e.id === id)!;
  if (bytes[el.dataStart] !== 0xbf) return;
  bytes.writeUInt32LE(crc32(bytes.subarray(el.dataStart + 6, el.end)), el.dataStart + 2);
}

const ID = { SeekHead: 0x114d9b74, Info: 0x1549a966, Tracks: 0x1654ae6b, Tags: 0x1254c367, Cluster: 0x1f43b675, Cues: 0x1c53bb6b };

describe("probeMatroska: the same answer as ffprobe", () => {
  it("MKV, H.264 + AAC (the upload fixture)", async () => {
    const probe = await expectSameAsFfprobe(await fixture("mkv"));
    expect(probe.streams.map((s) => [s.codecType, s.codecName])).toEqual([
      ["video", "h264"],
      ["audio", "aac"],
    ]);
    expect(probe.duration).toBeGreaterThan(1.9);
  });

  it("WebM, VP9 + Opus; WebM, VP8 + Vorbis", async () => {
    const vp9 = await media("vp9.webm", [
      ...VIDEO(),
      ...AUDIO,
      "-t",
      "1",
      "-c:v",
      "libvpx-vp9",
      "-deadline",
      "realtime",
      "-cpu-used",
      "8",
      "-c:a",
      "libopus",
      "-f",
      "webm",
    ]);
    expect((await expectSameAsFfprobe(vp9)).streams.map((s) => s.codecName)).toEqual(["vp9", "opus"]);
    const vp8 = await media("vp8.webm", [
      ...VIDEO(),
      ...AUDIO,
      "-t",
      "1",
      "-c:v",
      "libvpx",
      "-deadline",
      "realtime",
      "-c:a",
      "libvorbis",
      "-f",
      "webm",
    ]);
    expect((await expectSameAsFfprobe(vp8)).streams.map((s) => s.codecName)).toEqual(["vp8", "vorbis"]);
  });

  it("video only; audio only", async () => {
    const silent = await media("silent.mkv", [...VIDEO("320x240"), "-t", "1", ...X264, "-f", "matroska"]);
    expect((await expectSameAsFfprobe(silent)).streams).toHaveLength(1);
    expect((await expectSameAsFfprobe(await fixture("mkvAudioOnly"))).streams.map((s) => s.codecType)).toEqual(["audio"]);
  });

  it("several audio tracks and a subtitle track: every stream numbered as ffmpeg numbers them", async () => {
    const srt = at("subs.srt");
    await writeFile(srt, "1\n00:00:00,000 --> 00:00:00,500\nhello\n");
    const path = await media("many.mkv", [
      ...VIDEO(),
      ...AUDIO,
      "-i",
      srt,
      "-t",
      "1",
      ...["-map", "0:v", "-map", "1:a", "-map", "1:a", "-map", "1:a", "-map", "1:a", "-map", "1:a", "-map", "2:s"],
      ...X264,
      ...["-c:a:0", "libmp3lame", "-c:a:1", "aac", "-c:a:2", "flac", "-c:a:3", "ac3", "-c:a:4", "libvorbis", "-c:s", "srt"],
      "-f",
      "matroska",
    ]);
    const probe = await expectSameAsFfprobe(path);
    expect(probe.streams.map((s) => s.codecName)).toEqual(["h264", "mp3", "aac", "flac", "ac3", "vorbis", "subrip"]);
    expect(decisions(probe)).toMatchObject({ audio: 1, upload: [true, true] });
  });

  it("codecs that need a transcode or are copied: MPEG-2 + MP2, MPEG-4 Part 2, HEVC + Opus, AV1, H.264 10-bit and 4:4:4", async () => {
    expect((await expectSameAsFfprobe(await fixture("mkvMpeg2"))).streams.map((s) => s.codecName)).toEqual(["mpeg2video", "mp2"]);
    const hevc = await expectSameAsFfprobe(await fixture("mkvHevc"));
    expect(hevc.streams.map((s) => [s.codecName, s.pixFmt ?? null])).toEqual([
      ["hevc", "yuv420p"],
      ["opus", null],
    ]);
    const mpeg4 = await media("mpeg4.mkv", [...VIDEO(), "-t", "0.5", "-c:v", "mpeg4", "-f", "matroska"]);
    expect((await expectSameAsFfprobe(mpeg4)).streams[0].codecName).toBe("mpeg4");
    const av1 = await media("av1.mkv", [
      ...VIDEO("64x64"),
      "-frames:v",
      "3",
      "-c:v",
      "libaom-av1",
      "-strict",
      "-2",
      "-cpu-used",
      "8",
      "-f",
      "matroska",
    ]);
    expect((await expectSameAsFfprobe(av1)).streams[0].codecName).toBe("av1");
    for (const pixFmt of ["yuv420p10le", "yuv444p"]) {
      const path = await media(`${pixFmt}.mkv`, [
        ...VIDEO(),
        "-t",
        "0.5",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        pixFmt,
        "-f",
        "matroska",
      ]);
      const probe = await expectSameAsFfprobe(path);
      expect(probe.streams[0].pixFmt).toBe(pixFmt);
      expect(decisions(probe)?.upload[0]).toBe(false);
    }
    // Five encodes (an AV1 one among them) and six ffprobe runs: 4 s alone, past 30 s in a CI
    // run whose machine was busy with other work.
  }, 120_000);

  it("Cues in front (reserved index space), and a live recording: a Segment of unknown size", async () => {
    const input = await fixture("mkv");
    const cues = await media("cues-front.mkv", ["-i", input, "-c", "copy", "-reserve_index_space", "4096", "-f", "matroska"]);
    expect(layout(await readFile(cues)).top.findIndex((e) => e.id === ID.Cues)).toBeLessThan(
      layout(await readFile(cues)).top.findIndex((e) => e.id === ID.Cluster),
    );
    await expectSameAsFfprobe(cues);
    // ffmpeg writing to a pipe cannot come back to the Segment's size: it stays "unknown".
    const live = at("live.mkv");
    await ffmpeg(["-i", input, "-c", "copy", "-f", "matroska", `file:${at("live-tmp.mkv")}`]);
    const bytes = await readFile(at("live-tmp.mkv"));
    const { segment, top } = layout(bytes);
    bytes.fill(0xff, segment.sizeAt + 1, segment.sizeAt + segment.sizeLength); // all ones: unknown
    // Clusters of unknown size too, as a recorder that streams them writes them.
    for (const cluster of top.filter((e) => e.id === ID.Cluster)) {
      bytes[cluster.sizeAt] = 0xff >> (cluster.sizeLength - 1);
      bytes.fill(0xff, cluster.sizeAt + 1, cluster.sizeAt + cluster.sizeLength);
    }
    await writeFile(live, bytes);
    expect(await expectSameAsFfprobe(live)).toMatchObject({ duration: (await probeMatroska(at("live-tmp.mkv")))!.duration });
  });

  it("Info, Tracks and Tags after the clusters, found through the SeekHead, and through a second SeekHead at the end", async () => {
    const bytes = await readFile(await fixture("mkv"));
    const { segment, top } = layout(bytes);
    const part = (id: number) => top.filter((e) => e.id === id).map((e) => bytes.subarray(e.start, e.end));
    const media_ = Buffer.concat([...part(ID.Cluster), ...part(ID.Cues)]);
    const moved = [ID.Info, ID.Tracks, ID.Tags].map((id) => [id, Buffer.concat(part(id))] as const);
    const head = bytes.subarray(0, segment.start);
    const build = (front: Buffer, tail: Buffer) => {
      const data = Buffer.concat([front, media_, tail]);
      return Buffer.concat([head, ebml(0x18538067, data)]);
    };
    // One SeekHead in front pointing at the end.
    const frontSize = seekHead(moved.map(([id]) => [id, 0])).length;
    let position = frontSize + media_.length;
    const entries: [number, number][] = moved.map(([id, data]) => {
      const entry: [number, number] = [id, position];
      position += data.length;
      return entry;
    });
    const tail = Buffer.concat(moved.map(([, data]) => data));
    await writeFile(at("seek-end.mkv"), build(seekHead(entries), tail));
    await expectSameAsFfprobe(at("seek-end.mkv"));
    // A SeekHead in front pointing only at a second one at the end, which points at the rest.
    const first = seekHead([[ID.SeekHead, 0]]);
    const shifted = entries.map(([id, p]) => [id, p - frontSize + first.length] as [number, number]);
    const second = seekHead(shifted);
    const chained = build(seekHead([[ID.SeekHead, first.length + media_.length + tail.length]]), Buffer.concat([tail, second]));
    await writeFile(at("seek-chain.mkv"), chained);
    await expectSameAsFfprobe(at("seek-chain.mkv"));
  });
});

describe("what the elements cannot say goes to ffprobe", () => {
  it("no Duration (ffmpeg's live mode): null, and probeInput answers with ffprobe's probe", async () => {
    const path = await media("live-mode.mkv", [...VIDEO(), ...AUDIO, "-t", "1", ...X264, "-c:a", "aac", "-live", "1", "-f", "matroska"]);
    expect(await probeMatroska(path)).toBeNull();
    const probed = await runFfprobe(path, { demuxer: "matroska" });
    expect(essentials(await probeInput(path, { demuxer: "matroska" }))).toEqual(essentials(probed));
  });

  it("a rotate tag (ffprobe turns the picture by it): null, and probeInput says 90 as ffprobe does", async () => {
    const bytes = await readFile(await fixture("mkv"));
    // The video's ENCODER tag renamed `rotate` (NUL-padded, as EBML strings may be), its value `90`.
    const value = bytes.lastIndexOf("Lavc", bytes.indexOf("libx264"));
    const name = bytes.lastIndexOf("ENCODER", value);
    expect(name).toBeGreaterThan(0);
    bytes.write("rotate\0", name, "latin1");
    bytes.fill(0, value, bytes.indexOf("libx264", value) + 7);
    bytes.write("90", value, "latin1");
    fixCrc(bytes, ID.Tags);
    await writeFile(at("rotate-tag.mkv"), bytes);
    expect(await probeMatroska(at("rotate-tag.mkv"))).toBeNull();
    const probe = await probeInput(at("rotate-tag.mkv"), { demuxer: "matroska" });
    expect(probe.streams[0]).toMatchObject({ codecName: "h264", rotation: 90 });
  });

  it("a Projection in the video track (rotation by its roll, or 360° video): null", async () => {
    const bytes = await readFile(await fixture("mkv"));
    const { top } = layout(bytes);
    const [blank, info, tracks] = [0xec, ID.Info, ID.Tracks].map((id) => top.find((e) => e.id === id)!);
    expect(blank.end).toBe(info.start);
    expect(info.end).toBe(tracks.start);
    // The first TrackEntry's Video gains a Projection (rectangular, rolled a quarter turn).
    const roll = Buffer.alloc(8);
    roll.writeDoubleBE(-90);
    const projection = ebml(0x7670, Buffer.concat([ebml(0x7671, uintData(0)), ebml(0x7675, roll)]));
    // The first TrackEntry (ffmpeg 4 writes a CRC-32 element first; it is left out of the new Tracks).
    let entry = element(bytes, tracks.dataStart);
    if (entry.id === 0xbf) entry = element(bytes, entry.end);
    let video = element(bytes, entry.dataStart);
    while (video.id !== 0xe0 && video.end < entry.end) video = element(bytes, video.end);
    expect(video.id).toBe(0xe0);
    const newEntry = ebml(
      0xae,
      Buffer.concat([
        bytes.subarray(entry.dataStart, video.start),
        ebml(0xe0, Buffer.concat([bytes.subarray(video.dataStart, video.end), projection])),
        bytes.subarray(video.end, entry.end),
      ]),
    );
    const newTracks = ebml(ID.Tracks, Buffer.concat([newEntry, bytes.subarray(entry.end, tracks.end)]));
    // Paid for out of the Void in front, so nothing after it moves; the SeekHead's Info and Tracks entries move back.
    const grown = newTracks.length - (tracks.end - tracks.start);
    const voidData = blank.end - blank.dataStart - grown;
    expect(voidData).toBeGreaterThanOrEqual(0);
    const blankHead = bytes.subarray(blank.start, blank.dataStart);
    const sizeLength = blank.dataStart - blank.sizeAt;
    const newBlank = Buffer.concat([blankHead, Buffer.alloc(voidData)]);
    newBlank.writeUIntBE(voidData, 1 + sizeLength - 6, 6); // the low 6 bytes of the 8-byte size field
    const out = Buffer.concat([
      bytes.subarray(0, blank.start),
      newBlank,
      bytes.subarray(info.start, info.end),
      newTracks,
      bytes.subarray(tracks.end),
    ]);
    const seek = top.find((e) => e.id === ID.SeekHead)!;
    for (let i = seek.dataStart; i < seek.end; ) {
      const entryEl = element(out, i);
      i = entryEl.end;
      if (entryEl.id !== 0x4dbb) continue; // the CRC-32
      const id = element(out, entryEl.dataStart);
      const position = element(out, id.end);
      const target = out.readUIntBE(id.dataStart, id.end - id.dataStart);
      if (target === ID.Info || target === ID.Tracks) {
        const width = position.end - position.dataStart;
        out.writeUIntBE(out.readUIntBE(position.dataStart, width) - grown, position.dataStart, width);
      }
    }
    fixCrc(out, ID.SeekHead);
    await writeFile(at("projection.mkv"), out);
    // ffprobe still reads the file (the edit is well-formed); the reader leaves it to ffprobe.
    expect((await runFfprobe(at("projection.mkv"), { demuxer: "matroska" })).streams.map((s) => s.codecName)).toEqual(["h264", "aac"]);
    expect(await probeMatroska(at("projection.mkv"))).toBeNull();
  });

  it("an attachment (ffmpeg makes an image attachment a cover-art stream): null", async () => {
    const png = await fixture("png");
    const path = await media("attached.mkv", [
      "-i",
      await fixture("mkv"),
      "-c",
      "copy",
      "-attach",
      png,
      "-metadata:s:t",
      "mimetype=image/png",
      "-f",
      "matroska",
    ]);
    expect(await probeMatroska(path)).toBeNull();
  });

  it("a truncated head, garbage after the EBML magic, a missing file: null", async () => {
    const bytes = await readFile(await fixture("mkv"));
    const { top } = layout(bytes);
    const tracks = top.find((e) => e.id === ID.Tracks)!;
    await writeFile(at("cut.mkv"), bytes.subarray(0, tracks.start + 20));
    expect(await probeMatroska(at("cut.mkv"))).toBeNull();
    await writeFile(at("garbage.mkv"), Buffer.concat([bytes.subarray(0, 4), Buffer.alloc(4000, 0xff)]));
    expect(await probeMatroska(at("garbage.mkv"))).toBeNull();
    expect(await probeMatroska(at("missing.mkv"))).toBeNull();
  });
});

describe("MKV jobs need no ffprobe", () => {
  const noFfprobe = () => {
    // Both set: FFPROBE_PATH alone would take ffmpeg from the same (missing) folder (docs/media.md, "Binaries").
    vi.stubEnv("FFMPEG_PATH", mediaTools().ffmpeg);
    vi.stubEnv("FFPROBE_PATH", "/nonexistent/ffprobe");
    resetMediaConfig();
  };

  it("convert MKV → MP4 and MKV → MP3: the same output as with ffprobe", async () => {
    const input = await fixture("mkv");
    const source = (await sniffFile(input))!;
    for (const target of ["mp4", "mp3"] as const) {
      const withProbe = await convertFile(input, at(`probe.${target}`), { source, target });
      noFfprobe();
      const without = await convertFile(input, at(`read.${target}`), { source, target });
      vi.unstubAllEnvs();
      resetMediaConfig();
      expect(without).toEqual(withProbe);
      expect((await readFile(at(`read.${target}`))).equals(await readFile(at(`probe.${target}`)))).toBe(true);
    }
  });

  it("an MKV upload: the input read from its elements (and a video-only one's output from its boxes)", async () => {
    // With AAC, ffmpeg's MKV starts the video 21 ms in (the AAC priming moved to 0), and the
    // MP4 remuxed from it opens the video's edit list with an empty edit, which the box
    // reader leaves to ffprobe (docs/media.md, "Probing MKV and WebM without ffprobe"). Video
    // alone starts at 0: the whole job runs without ffprobe.
    const input = await media("upload.mkv", [...VIDEO("320x240"), "-t", "2", ...X264, "-f", "matroska"]);
    noFfprobe();
    const out = await processVideo(input, at("up.mp4"), at("up.jpg"), { keepMetadata: false });
    expect(out).toMatchObject({ width: 320, height: 240, duration: 2, transcoded: false });
  });
});
