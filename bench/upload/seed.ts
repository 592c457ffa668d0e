/**
 * Inputs, generated once and cached, and the uploaders' accounts, written straight to the
 * server's SQLite file (WAL: fine while it runs).
 */
import { statSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { cached, ffmpeg } from "../support/inputs";
import { CACHE_DIR, MiB } from "../support/run";

/** The video: about 1 GiB (ffmpeg's -fs stops at the first packet past it and finalises the file). */
const VIDEO_TARGET_BYTES = 1024 * MiB;
const IMAGE_TARGET_BYTES = 1 * MiB;

/**
 * A 2 s 1280x720 30 fps H.264 (8-bit 4:2:0, so the server remuxes rather than transcodes)
 * + AAC clip, with heavy temporal noise so it is ~60 MB: encoding 1 GiB of video directly
 * would take many minutes. Also the warm-up upload.
 */
export function ensureClip(): Promise<string> {
  return cached(join(CACHE_DIR, "clip-2s-v1.mp4"), (out) =>
    ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc2=size=1280x720:rate=30",
      "-f",
      "lavfi",
      "-i",
      "sine=frequency=440:sample_rate=48000",
      "-t",
      "2",
      "-vf",
      "noise=alls=60:allf=t+u",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-qp",
      "12",
      "-pix_fmt",
      "yuv420p",
      "-g",
      "30",
      "-c:a",
      "aac",
      "-b:a",
      "128k",
      "-f",
      "mp4",
      out,
    ]),
  );
}

/** The clip repeated with the concat demuxer and `-c copy` (no re-encode) up to ~1 GiB: a real, playable MP4. */
export async function ensureVideo(clip: string): Promise<string> {
  return cached(join(CACHE_DIR, "video-1gib-v1.mp4"), async (out) => {
    const copies = Math.ceil(VIDEO_TARGET_BYTES / statSync(clip).size) + 1;
    const list = `${out}.txt`;
    await writeFile(list, `file '${clip.replace(/'/g, "'\\''")}'\n`.repeat(copies));
    try {
      await ffmpeg([
        "-f",
        "concat",
        "-safe",
        "0",
        "-i",
        list,
        "-map",
        "0",
        "-c",
        "copy",
        "-fs",
        String(VIDEO_TARGET_BYTES),
        "-f",
        "mp4",
        out,
      ]);
    } finally {
      await rm(list, { force: true });
    }
  });
}

/**
 * A ~1 MiB, 2400x1600 JPEG (quality 90) like a camera photo's metadata: EXIF with
 * Orientation 1, make/model/date and GPS, plus XMP, so stripping has real work to do.
 * Content: colour gradients with Gaussian grain; the grain strength is bisected until the
 * file is within 3 % of 1 MiB.
 */
export async function ensureJpeg(): Promise<string> {
  return cached(join(CACHE_DIR, "photo-1mib-v1.jpg"), async (out) => {
    const { default: sharp } = await import("sharp");
    const width = 2400;
    const height = 1600;
    const svg = Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
        `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#2a5caa"/><stop offset="0.55" stop-color="#f4c27a"/><stop offset="1" stop-color="#3b5d2a"/></linearGradient>` +
        `<radialGradient id="sun" cx="0.7" cy="0.35" r="0.25"><stop offset="0" stop-color="#fff6d0"/><stop offset="1" stop-color="#fff6d0" stop-opacity="0"/></radialGradient></defs>` +
        `<rect width="100%" height="100%" fill="url(#sky)"/><rect width="100%" height="100%" fill="url(#sun)"/>` +
        `<path d="M0 ${height * 0.7} Q ${width * 0.3} ${height * 0.5} ${width * 0.55} ${height * 0.68} T ${width} ${height * 0.62} V ${height} H 0 Z" fill="#24401c"/>` +
        `</svg>`,
    );
    const scene = await sharp(svg).removeAlpha().raw().toBuffer();
    const exif = {
      IFD0: { Make: "BenchCam", Model: "B-1", Software: "mediahost bench", DateTime: "2026:01:02 03:04:05", Copyright: "bench" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 24/1", GPSLongitudeRef: "E", GPSLongitude: "2/1 21/1 3/1" },
    };
    const xmp = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:description>mediahost bench photo</dc:description></rdf:Description></rdf:RDF></x:xmpmeta>`;
    const render = async (sigma: number): Promise<Buffer> => {
      const grain = await sharp({
        create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma } },
      })
        .raw()
        .toBuffer();
      return sharp(scene, { raw: { width, height, channels: 3 } })
        .composite([{ input: grain, raw: { width, height, channels: 3 }, blend: "soft-light" }])
        .jpeg({ quality: 90 })
        .withMetadata({ orientation: 1 })
        .withExifMerge(exif)
        .withXmp(xmp)
        .toBuffer();
    };
    let low = 1;
    let high = 120;
    let best = await render((low + high) / 2);
    for (let i = 0; i < 12 && Math.abs(best.length - IMAGE_TARGET_BYTES) > IMAGE_TARGET_BYTES * 0.03; i++) {
      const sigma = (low + high) / 2;
      if (best.length > IMAGE_TARGET_BYTES) high = sigma;
      else low = sigma;
      best = await render((low + high) / 2);
    }
    const meta = await sharp(best).metadata();
    if (meta.orientation !== 1 || !meta.exif || !meta.xmp) throw new Error("generated JPEG lacks the expected metadata");
    await writeFile(out, best);
  });
}

/**
 * `count` ultra users with one app key each. One user per concurrent upload: the abuse
 * safeguard suspends a personal account after more than 8 uploads in a second, and the
 * upload bucket allows 20 per 30 s. The admin CLI would cost a process start per user.
 */
export async function createUploaders(dataDir: string, count: number): Promise<string[]> {
  const { createDb } = await import("../../lib/db/client");
  const { issueKey } = await import("../../lib/crypto/keys");
  const db = createDb({ provider: "sqlite", url: join(dataDir, "mediahost.db") });
  const keys: string[] = [];
  try {
    await db.$transaction(async (tx) => {
      for (let i = 0; i < count; i++) {
        const key = issueKey("app");
        await tx.user.create({
          data: {
            username: `bench${i}`,
            displayUsername: `bench${i}`,
            plan: "ultra",
            apps: { create: { name: "bench", keyHash: key.hash, keyHint: key.hint } },
          },
        });
        keys.push(key.key);
      }
    });
  } finally {
    await db.$disconnect();
  }
  return keys;
}
