/**
 * What bench:serve serves: its inputs (generated once, cached) and the seed, an Ultra user
 * with an app key (admin CLI) and three posts (API).
 */
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { cached, ffmpeg } from "../support/inputs";
import { CACHE_DIR, log, MiB, ROOT } from "../support/run";
import type { Server } from "../support/server";
import { expectStatus, pathOf, type Probe, probe } from "./ours";

const JPEG_TARGET_BYTES = 100 * 1024;
/** At least 2 MiB, so a 1 MiB range is a real part of the file. */
const VIDEO_MIN_BYTES = 2 * MiB;
export const RANGE_BYTES = MiB;

/** A 640x480 JPEG of Gaussian noise, the noise strength bisected until it is within 3 % of `target` bytes. */
export function ensureJpeg(target: number = JPEG_TARGET_BYTES): Promise<string> {
  return cached(join(CACHE_DIR, `serve-photo-${Math.round(target / 1024)}k-v1.jpg`), async (out) => {
    const { default: sharp } = await import("sharp");
    const render = (sigma: number): Promise<Buffer> =>
      sharp({ create: { width: 640, height: 480, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma } } })
        .jpeg({ quality: 80 })
        .toBuffer();
    let low = 2;
    let high = 80;
    let best = await render((low + high) / 2);
    for (let i = 0; i < 12 && Math.abs(best.length - target) > target * 0.03; i++) {
      if (best.length > target) high = (low + high) / 2;
      else low = (low + high) / 2;
      best = await render((low + high) / 2);
    }
    await writeFile(out, best);
  });
}

/** A 6 s 640x360 30 fps H.264 MP4 (no audio) at ~5 Mbit/s with noise: about 4 MB. */
export async function ensureVideo(): Promise<string> {
  const path = await cached(join(CACHE_DIR, "serve-video-4mb-v1.mp4"), (out) =>
    ffmpeg([
      "-f",
      "lavfi",
      "-i",
      "testsrc2=size=640x360:rate=30",
      "-t",
      "6",
      "-vf",
      "noise=alls=20:allf=t",
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-b:v",
      "5M",
      "-maxrate",
      "5M",
      "-bufsize",
      "5M",
      "-pix_fmt",
      "yuv420p",
      "-g",
      "60",
      "-an",
      "-movflags",
      "+faststart",
      "-f",
      "mp4",
      out,
    ]),
  );
  if (statSync(path).size < VIDEO_MIN_BYTES) throw new Error(`${path} is smaller than ${VIDEO_MIN_BYTES} bytes; delete it to regenerate`);
  return path;
}

const execFileAsync = promisify(execFile);

/** `npm run -s admin -- ...` against the server's database: its one JSON line. */
async function admin(server: Server, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await execFileAsync("npm", ["run", "-s", "admin", "--", ...args], { cwd: ROOT, env: server.env });
  return JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as Record<string, unknown>;
}

interface PostJson {
  code: string;
  url: string;
  files: { url: string; mime_type?: string; size?: number }[];
}

export async function upload(
  server: Server,
  key: string,
  file: Buffer,
  name: string,
  type: string,
  headers: Record<string, string>,
): Promise<PostJson> {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(file)], { type }), name);
  const res = await fetch(`${server.url}/api/upload`, { method: "POST", headers: { "api-key": key, ...headers }, body: form });
  const text = await res.text();
  const json = JSON.parse(text) as { post?: PostJson };
  if (res.status !== 200 || !json.post?.files?.[0]?.url) throw new Error(`upload of ${name}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return json.post;
}

export interface Seed {
  ownerKey: string;
  video: Buffer;
  cdnPath: string;
  signedPath: string;
  videoFilePath: string;
  postPath: string;
  sharePath: string;
  rangeHeader: string;
  /** Our replies for the public file and the video's first MiB. */
  cdn: Probe;
  range: Probe;
}

/**
 * The owner through the admin CLI; through the API a public post with the ~100 KB JPEG, a
 * private post with the same JPEG (its signed file URL comes from the upload reply), and a
 * public post with the ~4 MB MP4 uploaded with `priority: false` (standard delivery: no HLS
 * job competes for the CPU). Checked: each file answers.
 */
export async function seed(server: Server, jpeg: Buffer, video: Buffer): Promise<Seed> {
  log("seeding: owner and key (admin CLI), three posts (API)");
  await admin(server, ["user", "create", "--username", "bench_owner", "--plan", "ultra"]);
  const app = await admin(server, ["app", "create", "--user", "bench_owner", "--name", "bench"]);
  if (typeof app.key !== "string") throw new Error(`app create: ${JSON.stringify(app)}`);
  const ownerKey = app.key;
  const publicPost = await upload(server, ownerKey, jpeg, "photo.jpg", "image/jpeg", { "post-privacy": "public" });
  const privatePost = await upload(server, ownerKey, jpeg, "photo.jpg", "image/jpeg", { "post-privacy": "private" });
  const videoPost = await upload(server, ownerKey, video, "clip.mp4", "video/mp4", { "post-privacy": "public", priority: "false" });

  const seeded = {
    ownerKey,
    video,
    cdnPath: pathOf(publicPost.files[0].url),
    signedPath: pathOf(privatePost.files[0].url),
    videoFilePath: pathOf(videoPost.files[0].url),
    postPath: `/api/posts/${publicPost.code}`,
    sharePath: `/p/${publicPost.code}`,
    rangeHeader: `bytes=0-${RANGE_BYTES - 1}`,
  };
  const cdn = await probe(server, seeded.cdnPath);
  expectStatus("public file", cdn, 200);
  expectStatus("signed file", await probe(server, seeded.signedPath), 200);
  const range = await probe(server, seeded.videoFilePath, { range: seeded.rangeHeader });
  expectStatus("video range", range, 206);
  if (range.body.length !== RANGE_BYTES) throw new Error(`video range: ${range.body.length} bytes, expected ${RANGE_BYTES}`);
  return { ...seeded, cdn, range };
}

/** Read the JPEG and the video (generating them the first time). */
export async function inputs(): Promise<{ jpeg: Buffer; video: Buffer }> {
  const jpegPath = await ensureJpeg();
  const videoPath = await ensureVideo();
  return { jpeg: await readFile(jpegPath), video: await readFile(videoPath) };
}
