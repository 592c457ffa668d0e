/**
 * The post pair: GET /api/posts/{code} with an api-key that changes every request, against
 * the bare reference's fixed JSON of the same bytes (sent the same requests; it ignores the key).
 *
 * GET /posts/{code} is limited to 20 requests per 30 s per user, so its requests rotate over
 * a pool of readers (one app key each; wrk's Lua script uses them in turn) sized from the
 * measured throughput, and before each measured run every key is used once (untimed;
 * reported as `post_cold_key_rps`), so the server's key cache is warm, as it is for readers
 * who come back.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Server } from "../support/server";
import type { TargetOf } from "./bare";
import type { Run, Target } from "./load";
import { type Options, TARGETS } from "./options";
import { expectStatus, type Probe, probe } from "./ours";
import type { Ratio } from "./report";

/** Used by the key warm-up (touchAll); the measured runs use options.connections. */
const CONNECTIONS = 50;

/**
 * Readers for GET /posts/{code}: one user with one app key each, written straight into the
 * server's database (the admin CLI would cost a process start per key). The limit is per
 * user (20 per 30 s: `posts_get` in lib/ratelimit/buckets.ts), and wrk's script uses the keys in turn, so a
 * pool of `size` keys carries `size x limit` requests per window; `sizeFor` picks it.
 */
class ReaderPool {
  readonly keys: string[] = [];
  private made = 0;

  constructor(private readonly config: { provider: "sqlite" | "postgres"; url: string }) {}

  /** Adds readers until there are `count`. */
  async grow(count: number): Promise<void> {
    if (count <= this.keys.length) return;
    const { createDb } = await import("../../lib/db/client");
    const { issueKey } = await import("../../lib/crypto/keys");
    const { newId } = await import("../../lib/db/ids");
    const db = createDb(this.config);
    try {
      while (this.keys.length < count) {
        const batch = Math.min(500, count - this.keys.length);
        const users = Array.from({ length: batch }, () => ({ id: newId(), name: `reader${this.made++}`, key: issueKey("app") }));
        await db.user.createMany({ data: users.map((u) => ({ id: u.id, username: u.name, displayUsername: u.name, plan: "free" })) });
        await db.app.createMany({ data: users.map((u) => ({ userId: u.id, name: "bench", keyHash: u.key.hash, keyHint: u.key.hint })) });
        for (const u of users) this.keys.push(u.key.key);
      }
    } finally {
      await db.$disconnect();
    }
  }

  /**
   * One request with every key, CONNECTIONS at a time, so the server has seen each key
   * before a measured run (its key cache is warm, as it is for readers who come back).
   * Returns those requests per second: keys never seen.
   */
  async touchAll(send: (key: string) => Promise<void>): Promise<number> {
    const started = Date.now();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < this.keys.length) await send(this.keys[next++]);
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    return this.keys.length / Math.max(0.001, (Date.now() - started) / 1000);
  }
}

export interface PostPair {
  readers: ReaderPool;
  /** Our reply (what the reference sends). */
  reply: Probe;
  /** Writes the key file wrk reads (in the work folder) and returns the pair's targets. */
  targets(sides: { ours: TargetOf; reference: TargetOf }, work: string): Promise<Target[]>;
  /** Records a run's rate (warm-up and rounds), from which the pool is sized. */
  observe(t: Target, run: Run): void;
  /** Before a measured run: the pool grown for the reference's run, every key touched for ours. */
  beforeRun(t: Target): Promise<void>;
  /** GET /posts/{code} with keys the server has not seen yet (each a database look-up). */
  coldKeyRps(): number;
}

export async function startPostPair(server: Server, postPath: string, options: Options): Promise<PostPair> {
  const { BUCKETS } = await import("../../lib/ratelimit/buckets");
  const { databaseConfig } = await import("../../lib/db/config");
  const readers = new ReaderPool(databaseConfig(server.env));
  await readers.grow(options.readers ?? 2000);
  const reply = await probe(server, postPath, { "api-key": readers.keys[0] });
  expectStatus("post JSON", reply, 200);

  let keyFile = "";
  // wrk uses the keys in turn, so at R req/s each key serves R x duration / size requests in
  // a run, plus one from the warm-up touch; within the limit.
  const sizeFor = (rps: number, seconds: number): number => Math.ceil((rps * seconds * 1.3) / (BUCKETS.posts_get.limit - 2)) + 100;
  const writeKeys = async (): Promise<void> => writeFile(keyFile, `${readers.keys.join("\n")}\n`);
  let postRps = 5000;
  let bareJsonRps = 0;
  let coldKeyRps = 0;
  /**
   * Requests per second the reader pool must carry. The warm-up's post rate is measured
   * before the main thread has its core to itself and with its keys running out, so it
   * understates the measured rounds (by 3x on a fast machine, which left the first round a
   * third 429s). Half the bare JSON server's rate covers round one (ours has reached 0.39–
   * 0.47 of it): no more, because every key is a reader the server's caches must hold, and a
   * pool larger than needed measures a load no real reader mix makes.
   */
  const poolRps = (): number => Math.max(postRps * 1.5, bareJsonRps * 0.5);
  return {
    readers,
    reply,
    async targets({ ours, reference }, work) {
      keyFile = join(work, "keys.txt");
      await writeKeys();
      return [
        reference("bare_json", "post", "bare node:http, fixed JSON of the same bytes", "/json", {}, keyFile),
        ours("post", "post", "GET /api/posts/{code}, rotating api-keys", postPath, {}, keyFile),
      ];
    },
    observe(t, run) {
      if (t.name === "post") postRps = Math.max(postRps, run.rps);
      if (t.name === "bare_json") bareJsonRps = Math.max(bareJsonRps, run.rps);
    },
    async beforeRun(t) {
      if (t.name === "bare_json") {
        await readers.grow(options.readers ?? sizeFor(poolRps(), options.durationS));
        await writeKeys();
      }
      if (t.name === "post") {
        coldKeyRps = Math.max(coldKeyRps, await readers.touchAll(async (key) => void (await probe(server, postPath, { "api-key": key }))));
      }
    },
    coldKeyRps: () => coldKeyRps,
  };
}

export const POST_RATIOS: Ratio[] = [
  { key: "post_ratio", ours: "post", reference: "bare_json", metric: "rps", target: TARGETS.post_ratio },
];
