/**
 * The offload pair (issue 29 §2): nginx (Debian's, one process, `sendfile`, `open_file_cache`)
 * sending a 63 KB JPEG (a public post of its own) and the video's first MiB from disk itself
 * (`nginx_file`, `nginx_range`), against a second server of ours on the same data in
 * DELIVERY_OFFLOAD=x-accel mode behind the same nginx, which checks each request and leaves
 * the bytes to nginx (docs/delivery-offload.md): `offload`, `offload_range`. Pinned, nginx and
 * the offload server share the servers' core; the CPU of both is recorded (`proxy_cpu_pct` is
 * nginx's share while it fronts us).
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startNginx } from "../../tests/support/nginx";
import { log, onCleanup } from "../support/run";
import type { Server } from "../support/server";
import type { Target } from "./load";
import { type Options, type PairName, TARGETS } from "./options";
import { directHeaders, expectStatus, pathOf, type Probe, probe, startOurs } from "./ours";
import type { Ratio } from "./report";
import { ensureJpeg, upload } from "./seed";

/**
 * The offload pair's image: issue 29 §2 measured a 63 KB JPEG. With the 100 KB one wrk's one
 * thread could not saturate nginx (77–86 % of its core: every offload ratio client-bound);
 * with 63 KB nginx reaches 97–98 %, so the ratio can be judged.
 */
const OFFLOAD_JPEG_TARGET_BYTES = 63 * 1024;
/** Where nginx serves the offload pair's JPEG itself (the reference). */
const OFFLOAD_DIRECT_PATH = "/direct/offload.jpg";

export interface OffloadImage {
  /** Its /cdn path (the post is public). */
  path: string;
  /** Our reply. */
  probe: Probe;
}

/** The offload and proxy-cache pairs' image: a public post of the 63 KB JPEG, as our server answers it, and its bytes in the work folder for nginx direct. */
export async function offloadImage(server: Server, key: string, work: string): Promise<OffloadImage> {
  const jpeg = await readFile(await ensureJpeg(OFFLOAD_JPEG_TARGET_BYTES));
  const post = await upload(server, key, jpeg, "offload.jpg", "image/jpeg", { "post-privacy": "public" });
  const path = pathOf(post.files[0].url);
  const answer = await probe(server, path);
  expectStatus("the offload pair's public file", answer, 200);
  await writeFile(join(work, OFFLOAD_DIRECT_PATH.split("/").at(-1)!), answer.body);
  return { path, probe: answer };
}

export interface OffloadSide {
  server: Server;
  nginx: Awaited<ReturnType<typeof startNginx>>;
  targets: Target[];
}

/**
 * A second server of ours on the same DATA_DIR and database in DELIVERY_OFFLOAD=x-accel mode
 * (no background work: the first server does it), and one nginx serving the work folder
 * directly (/direct/, the reference, with our file headers) and proxying to that server with
 * the offload location of docs/operations.md. Checked before any run: the file and the range
 * arrive through nginx byte for byte as ours sent them.
 */
export async function startOffload(
  options: Options,
  server: Server,
  extraEnv: Record<string, string>,
  work: string,
  image: OffloadImage,
  seen: { videoFilePath: string; rangeHeader: string; range: Probe },
): Promise<OffloadSide> {
  log("starting the offload pair: a second server with DELIVERY_OFFLOAD=x-accel, and nginx");
  const offloadServer = await startOurs(options, {
    ...extraEnv,
    DATA_DIR: server.dataDir,
    DATABASE_URL: String(server.env.DATABASE_URL ?? ""),
    DELIVERY_OFFLOAD: "x-accel",
    BACKGROUND_WORK: "off",
  });
  const nginx = await startNginx({
    upstream: offloadServer.url,
    offload: { prefix: "/_protected/", filesDir: join(server.dataDir, "files") },
    direct: { "/direct/": work },
    directHeaders: directHeaders(image.probe),
  });
  onCleanup(() => nginx.stop());
  const viaNginx = { ...offloadServer, url: nginx.url };
  const file = await probe(viaNginx, image.path);
  expectStatus("public file through nginx (offload)", file, 200);
  if (!file.body.equals(image.probe.body)) throw new Error("the file through nginx (offload) differs from ours");
  const range = await probe(viaNginx, seen.videoFilePath, { range: seen.rangeHeader });
  expectStatus("video range through nginx (offload)", range, 206);
  if (!range.body.equals(seen.range.body)) throw new Error("the range through nginx (offload) differs from ours");
  const direct = await probe(viaNginx, OFFLOAD_DIRECT_PATH);
  expectStatus("nginx direct", direct, 200);
  const target =
    (side: "reference" | "ours", pair: PairName) =>
    (name: string, label: string, path: string, headers: Record<string, string>): Target => ({
      name,
      pair,
      side,
      label,
      url: `${nginx.url}${path}`,
      pid: side === "reference" ? nginx.pid : offloadServer.pid,
      headers,
      ...(side === "ours" ? { alsoPid: nginx.pid } : {}),
    });
  const directly = target("reference", "offload");
  const proxied = target("ours", "offload");
  const range1MiB = { range: seen.rangeHeader };
  return {
    server: offloadServer,
    nginx,
    targets: [
      directly("nginx_file", "nginx sending the 63 KB JPEG itself (sendfile, open_file_cache)", OFFLOAD_DIRECT_PATH, {}),
      proxied("offload", "GET the 63 KB public file through nginx, DELIVERY_OFFLOAD=x-accel", image.path, {}),
      directly("nginx_range", "nginx sending the video's first MiB itself", "/direct/clip.mp4", range1MiB),
      proxied("offload_range", "GET video, Range first 1 MiB, through nginx, x-accel", seen.videoFilePath, range1MiB),
    ],
  };
}

export const OFFLOAD_RATIOS: Ratio[] = [
  { key: "offload_ratio", ours: "offload", reference: "nginx_file", metric: "rps", target: TARGETS.offload_ratio, judged: false },
  {
    key: "offload_range_ratio",
    ours: "offload_range",
    reference: "nginx_range",
    metric: "rps",
    target: TARGETS.offload_range_ratio,
    judged: false,
  },
];
