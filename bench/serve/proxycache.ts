/**
 * The proxy-cache pair (issue 42 §1): nginx sending the 63 KB JPEG from disk itself
 * (`nginx_disk`), and the same public file through nginx's proxy cache with the block of
 * docs/operations.md ("Caching public files") in front of our server, warmed first
 * (`nginx_cache_hot`): wrk and nginx alone on the hot path, the service idle (its CPU is
 * recorded beside, `service_cpu_pct`). The ratio is the cache over nginx's disk.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startNginx } from "../../tests/support/nginx";
import { log, onCleanup } from "../support/run";
import type { Server } from "../support/server";
import type { Target } from "./load";
import type { OffloadImage } from "./offload";
import { TARGETS } from "./options";
import { directHeaders, expectStatus, type Probe, probe } from "./ours";
import type { Ratio } from "./report";

/**
 * Both sides pipelined: one wrk thread spends more per request than nginx does to answer it,
 * so unpipelined the client saturated first (nginx at 86 % of its core, `client_bound`) and
 * the pair judged wrk, not nginx (docs/performance.md, "Read path").
 */
const PROXYCACHE_PIPELINE = 8;

/** Where nginx serves the proxy-cache pair's JPEG itself (the same bytes as the cached file). */
const PROXYCACHE_DIRECT_PATH = "/direct/proxycache.jpg";

interface ProxyCacheSide {
  nginx: Awaited<ReturnType<typeof startNginx>>;
  targets: Target[];
}

/**
 * One nginx with the cache zone and /cdn/ location of docs/operations.md in front of our
 * server, serving the work folder directly too (/direct/, the reference, with our file
 * headers). The public 63 KB JPEG is asked for until nginx answers it from its cache (checked
 * byte for byte); SHARED_CACHE_SECONDS stays at its default, so a run of a minute or more
 * includes the revalidations a real cache makes.
 */
export async function startProxyCache(server: Server, work: string, image: OffloadImage): Promise<ProxyCacheSide> {
  log("starting the proxy-cache pair: nginx with proxy_cache in front of our server");
  await writeFile(join(work, PROXYCACHE_DIRECT_PATH.split("/").at(-1)!), image.probe.body);
  const nginx = await startNginx({
    upstream: server.url,
    cache: true,
    direct: { "/direct/": work },
    directHeaders: directHeaders(image.probe),
  });
  onCleanup(() => nginx.stop());
  const viaNginx = { ...server, url: nginx.url };
  let hot: Probe | null = null;
  for (let i = 0; i < 5 && hot?.headers.get("x-cache-status") !== "HIT"; i++) hot = await probe(viaNginx, image.path);
  if (hot?.headers.get("x-cache-status") !== "HIT")
    throw new Error(`nginx does not cache the public file (${hot?.headers.get("x-cache-status")})`);
  if (!hot.body.equals(image.probe.body)) throw new Error("the file from nginx's cache differs from ours");
  expectStatus("nginx direct (proxy cache pair)", await probe(viaNginx, PROXYCACHE_DIRECT_PATH), 200);
  const target = (side: "reference" | "ours", name: string, label: string, path: string): Target => ({
    name,
    pair: "proxycache",
    side,
    label,
    url: `${nginx.url}${path}`,
    pid: nginx.pid,
    headers: {},
    ...(side === "ours" ? { alsoPid: server.pid, alsoName: "service" as const } : {}),
    pipeline: PROXYCACHE_PIPELINE,
  });
  return {
    nginx,
    targets: [
      target(
        "reference",
        "nginx_disk",
        "nginx sending the 63 KB JPEG from disk itself (sendfile, open_file_cache)",
        PROXYCACHE_DIRECT_PATH,
      ),
      target("ours", "nginx_cache_hot", "GET the 63 KB public file through nginx's proxy cache (hot; the service idle)", image.path),
    ],
  };
}

/**
 * Judged by CPU per request: one wrk thread cannot saturate nginx sending from disk on two cores
 * even pipelined (67–73 % of its core), so a rate ratio would judge wrk. `proxycache_rps_ratio`
 * stays recorded beside it, and counts where the reference did saturate.
 */
export const PROXYCACHE_RATIOS: Ratio[] = [
  { key: "proxycache_ratio", ours: "nginx_cache_hot", reference: "nginx_disk", metric: "cpu", target: TARGETS.proxycache_ratio },
  {
    key: "proxycache_rps_ratio",
    ours: "nginx_cache_hot",
    reference: "nginx_disk",
    metric: "rps",
    target: TARGETS.proxycache_ratio,
    judged: false,
  },
];
