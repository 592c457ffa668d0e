/** bench:serve's command line, its pairs and the targets its ratios are judged by. */
import { join } from "node:path";
import { CACHE_DIR } from "../support/run";

const DEFAULT_CONNECTIONS = 50;
const DEFAULT_DURATION_S = 10;
const DEFAULT_ROUNDS = 2;
const PG_DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test";

export const TARGETS = {
  cdn_ratio: { min: 0.8 },
  cdn_p99_ratio: { max: 1.5 },
  signed_ratio: { min: 0.75 },
  range_ratio: { min: 0.8 },
  post_ratio: { min: 0.3 },
  share_robot_ratio: { min: 0.3 },
  offload_ratio: { min: 0.4 },
  offload_range_ratio: { min: 0.8 },
  proxycache_ratio: { min: 0.8 },
  peak_rss_mb: { max: 300 },
} as const;

export const PAIRS = ["file", "range", "post", "share", "offload", "proxycache"] as const;
export type PairName = (typeof PAIRS)[number];

export interface Options {
  durationS: number;
  rounds: number;
  connections: number;
  postgresUrl: string | null;
  profileDir: string | null;
  pin: boolean;
  /** With pin: each server's main thread alone on its core (`--pin-all` keeps every thread there). */
  splitPin: boolean;
  only: Set<PairName>;
  /**
   * `--pipeline n`: each connection sends n requests at a time (HTTP/1.1 pipelining, from
   * one Lua-formatted batch), for both sides of every pair. One wrk thread cannot saturate
   * nginx on two cores one request at a time (it spends more per request than nginx does);
   * pipelined, the client's cost per request falls by about n, so the offload pair's
   * reference can reach its own bound. 1 (the default) is the plain run of every other figure.
   */
  pipeline: number;
  /**
   * `--readers n`: a fixed pool of reader keys instead of one sized for the warm-up's rate
   * (at least 8 000 req/s). On a loaded machine the warm touch of thousands of keys can
   * outlast the caches' one-minute expiry, and the measured run then reads the keys it
   * touched first from the database again; a pool the run's rate needs avoids that.
   * A pool too small for the rate shows as 429s (flagged).
   */
  readers: number | null;
}

const USAGE =
  "usage: node --import tsx bench/serve.ts [--duration seconds] [--rounds n] [--connections n] [--postgres] [--no-pin | --pin-all] [--cpu-prof] [--only file,range,post,share,offload,proxycache] [--readers n] [--pipeline n]";

export function parseOptions(argv: string[]): Options {
  const value = (flag: string): string | undefined => {
    const at = argv.indexOf(flag);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  const positive = (flag: string, fallback: number): number => {
    const raw = value(flag);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isInteger(n) || n < 1) {
      console.error(USAGE);
      process.exit(64);
    }
    return n;
  };
  const only = (value("--only") ?? PAIRS.join(",")).split(",").filter(Boolean);
  if (only.some((name) => !(PAIRS as readonly string[]).includes(name))) {
    console.error(USAGE);
    process.exit(64);
  }
  const envPg = /^postgres(ql)?:\/\//i.test(process.env.DATABASE_URL ?? "") ? (process.env.DATABASE_URL ?? null) : null;
  return {
    durationS: positive("--duration", DEFAULT_DURATION_S),
    rounds: positive("--rounds", DEFAULT_ROUNDS),
    readers: value("--readers") === undefined ? null : positive("--readers", 1),
    connections: positive("--connections", DEFAULT_CONNECTIONS),
    postgresUrl: envPg ?? (argv.includes("--postgres") ? PG_DEFAULT_URL : null),
    profileDir: argv.includes("--cpu-prof") ? join(CACHE_DIR, `profiles-serve-${Date.now()}`) : null,
    pin: !argv.includes("--no-pin"),
    splitPin: !argv.includes("--pin-all"),
    only: new Set(only as PairName[]),
    pipeline: positive("--pipeline", 1),
  };
}
