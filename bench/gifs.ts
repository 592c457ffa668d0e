/**
 * `npm run bench:gifs`: latency of GET /gifs at 10 000 and at 1 000 000 GIF posts, on
 * SQLite and PostgreSQL, for one-word and two-word searches and no search.
 *
 * Per provider: one fresh database per size (SQLite in a temp file, PostgreSQL in a new
 * schema of the `test` database; dropped afterwards), migrated by the real migrator and
 * seeded in bulk (bench/gifs-data.ts): 10 000 posts, then 1 000 000. Each is served by
 * its own production server (npm start: scripts/launch.mjs, on loopback, TRUST_PROXY so each request
 * can carry its own X-Forwarded-For and the 60/min per-IP limit does not throttle the
 * run). When a server cannot start (no build possible), the in-process dispatcher is
 * measured instead and the output says so.
 *
 * The sizes are measured in interleaved rounds (a few requests of each kind against each
 * size, in turn) rather than one after the other: on a shared machine the load changes
 * over minutes, and the ratio between sizes must not measure that.
 *
 * Each figure is the client's wall time for a whole request, body read, over
 * BENCH_GIFS_REQUESTS requests per kind and size (default 200, after 20 warm-up), rotating
 * through five searches of the kind, limit 30. The query plans of the statements each
 * kind runs are printed for every size. Target: p95 at the largest size within 3x of p95
 * at the smallest, per provider, worst of the three kinds. The last line printed is one
 * JSON object.
 *
 * Settings: BENCH_GIFS_SIZES (default "10000,1000000"), BENCH_GIFS_PROVIDERS (default
 * "sqlite,postgres"), BENCH_GIFS_REQUESTS, BENCH_GIFS_IN_PROCESS=1 (skip the server),
 * TEST_DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/test).
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { sqltag as sql, type Sql } from "@prisma/client/runtime/client";
import { createDb, db, setDb, type Db } from "../lib/db/client";
import type { DatabaseConfig, DatabaseProvider } from "../lib/db/config";
import { applyMigrations } from "../lib/db/migrator";
import { chooseDriver, COUNT_CAP, MAX_EXPANSION } from "../lib/gifs/driver";
import { countWordRowsSql, gifPostStreamSql, scanSql, wordsStartingWithSql, wordStreamSql } from "../lib/gifs/queries";
import { readCandidates, scanBudget } from "../lib/gifs/search";
import { searchTerms } from "../lib/gifs/terms";
import { startTestServer, type TestServer } from "../tests/support/server";
import { postgresWriter, SEARCHES, sqliteWriter, type BulkWriter } from "./gifs-data";

const SIZES = (process.env.BENCH_GIFS_SIZES || "10000,1000000").split(",").map(Number);
const PROVIDERS = (process.env.BENCH_GIFS_PROVIDERS || "sqlite,postgres").split(",") as DatabaseProvider[];
const REQUESTS = Math.max(20, Number(process.env.BENCH_GIFS_REQUESTS || 200));
const WARMUP = 20;
const PG_BASE = process.env.TEST_DATABASE_URL || "postgresql://postgres@127.0.0.1:5432/test";
const TARGET_RATIO = 3;
const LIMIT = 30;

const KINDS = {
  one_word: SEARCHES.one_word.map((s) => `?search=${encodeURIComponent(s)}`),
  two_words: SEARCHES.two_words.map((s) => `?search=${encodeURIComponent(s)}`),
  no_search: [""],
} as const;
type Kind = keyof typeof KINDS;

interface Figure {
  median_ms: number;
  p95_ms: number;
}

const round = (x: number, digits = 2): number => Math.round(x * 10 ** digits) / 10 ** digits;
const quantile = (sorted: number[], q: number): number => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

// ───────────────────────────── databases ─────────────────────────────

/** Servers not stopped and databases not dropped yet: an interrupted run cleans up on its way out. */
const pending = new Set<() => Promise<void>>();
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers and dropping the benchmark databases`);
    // A drop can wait on a lock held by the interrupted load; do not hang on it.
    const giveUp = new Promise((done) => setTimeout(done, 15_000));
    void Promise.race([Promise.allSettled([...pending].map((cleanup) => cleanup())), giveUp]).then(() => process.exit(130));
  });
}

/** `cleanup`, registered until it has run. */
function cleanupOnExit(cleanup: () => Promise<void>): () => Promise<void> {
  const once = async () => {
    pending.delete(once);
    await cleanup();
  };
  pending.add(once);
  return once;
}

interface BenchDatabase {
  config: DatabaseConfig;
  writer: BulkWriter;
  drop(): Promise<void>;
}

async function openDatabase(provider: DatabaseProvider): Promise<BenchDatabase> {
  if (provider === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "bench-gifs-"));
    const config: DatabaseConfig = { provider, url: join(dir, "bench.db") };
    const drop = cleanupOnExit(async () => rmSync(dir, { recursive: true, force: true }));
    await applyMigrations(config);
    return { config, writer: sqliteWriter(config.url), drop };
  }
  const schema = `bench_gifs_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  const drop = cleanupOnExit(async () => {
    const c = new pg.Client({ connectionString: PG_BASE });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await c.end();
  });
  const url = new URL(PG_BASE);
  url.searchParams.set("schema", schema);
  const config: DatabaseConfig = { provider, url: url.toString() };
  await applyMigrations(config);
  return { config, writer: postgresWriter(PG_BASE, schema), drop };
}

// ───────────────────────────── requests ─────────────────────────────

type Fetcher = (path: string, ip: string) => Promise<{ status: number; body: string }>;

/** The production server when it starts; else the same dispatcher in this process. */
async function openFetcher(config: DatabaseConfig, client: Db): Promise<{ fetcher: Fetcher; through: string; close: () => Promise<void> }> {
  if (process.env.BENCH_GIFS_IN_PROCESS !== "1") {
    let server: TestServer | undefined;
    try {
      const databaseUrl = config.provider === "sqlite" ? `file:${config.url}` : config.url;
      server = await startTestServer({ DATABASE_URL: databaseUrl, TRUST_PROXY: "1", REDIS_URL: "" });
      const base = `${server.url}/api`;
      const fetcher: Fetcher = async (path, ip) => {
        const reply = await fetch(`${base}${path}`, { headers: { "x-forwarded-for": ip } });
        return { status: reply.status, body: await reply.text() };
      };
      const running = server;
      const close = cleanupOnExit(async () => void (await running.stop()));
      return { fetcher, through: "production server (npm start: scripts/launch.mjs) on loopback", close };
    } catch (error) {
      console.error(
        `production server unavailable, measuring in-process: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      );
      await server?.stop();
    }
  }
  const { dispatcher } = await import("../lib/routes");
  const api = dispatcher("api");
  const fetcher: Fetcher = async (path, ip) => {
    // Several databases in one process: the dispatcher reads the process-wide client.
    setDb(client);
    const reply = await api(new Request(`http://localhost/api${path}`, { headers: { "x-client-ip": ip } }));
    return { status: reply.status, body: await reply.text() };
  };
  return { fetcher, through: "in-process dispatcher (lib/routes)", close: async () => undefined };
}

let ipCounter = 0;
/** A fresh client address per request: the bench measures latency, not the rate limiter. */
const nextIp = (): string => {
  const n = ipCounter++;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

// ───────────────────────────── query plans ─────────────────────────────

async function explain(provider: DatabaseProvider, statement: Sql): Promise<string> {
  if (provider === "sqlite") {
    const rows = await db().$queryRaw<{ id: number; parent: number; detail: string }[]>(sql`EXPLAIN QUERY PLAN ${statement}`);
    const depth = new Map<number, number>([[0, 0]]);
    return rows
      .map((r) => {
        const d = (depth.get(r.parent) ?? 0) + 1;
        depth.set(r.id, d);
        return `${"  ".repeat(d)}${r.detail}`;
      })
      .join("\n");
  }
  const rows = await db().$queryRaw<{ "QUERY PLAN": string }[]>(sql`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement}`);
  // The candidate ids inlined into the plan say nothing; keep the lines readable.
  return rows.map((r) => `  ${r["QUERY PLAN"].replace(/'\{[0-9a-f,]{100,}\}'/g, "'{…ids…}'")}`).join("\n");
}

/** The statements one request of each kind runs (first search of the kind), explained. */
async function printPlans(provider: DatabaseProvider): Promise<void> {
  const budget = scanBudget(LIMIT);
  const show = async (title: string, statement: Sql) => console.log(`\n${title}\n${await explain(provider, statement)}`);

  const first = await readCandidates({ kind: "posts", filters: [] }, undefined, budget);
  await show("no search: page 1", scanSql(gifPostStreamSql(undefined, budget), []));
  const after = { t: first[first.length - 1].t, id: first[first.length - 1].id };
  await show("no search: page 2 (after a cursor)", scanSql(gifPostStreamSql(after, budget), []));

  // "danc" starts several stored words (dancing, dancer...): the merged stream.
  for (const search of ["danc", SEARCHES.two_words[0]]) {
    const terms = searchTerms(search);
    const driver = await chooseDriver(terms);
    if (terms.length > 1) for (const t of terms) await show(`"${search}": rank "${t.prefix}"`, countWordRowsSql(t, COUNT_CAP));
    if (driver.kind !== "words") {
      console.log(`"${search}": driver ${driver.kind}`);
      continue;
    }
    await show(
      `"${search}": words starting with "${driver.term.prefix}" (${driver.words.length})`,
      wordsStartingWithSql(driver.term, MAX_EXPANSION),
    );
    const filters = driver.filters.length ? ` + words "${driver.filters.map((t) => t.prefix).join(" ")}"` : "";
    await show(`"${search}": page 1, listing rules${filters}`, scanSql(wordStreamSql(driver.words, undefined, budget), driver.filters));
    const page = await readCandidates(driver, undefined, budget);
    const cursor = { t: page[page.length - 1].t, id: page[page.length - 1].id };
    await show(`"${search}": page 2 (after a cursor)`, scanSql(wordStreamSql(driver.words, cursor, budget), driver.filters));
  }
}

// ───────────────────────────── main ─────────────────────────────

interface Instance {
  size: number;
  database: BenchDatabase;
  client: Db;
  fetcher?: Awaited<ReturnType<typeof openFetcher>>;
  seedSeconds: number;
  times: Record<Kind, number[]>;
  posts: Record<Kind, number>;
}

type Result = Figure & { posts_per_page: number };

async function seed(provider: DatabaseProvider, size: number): Promise<Instance> {
  const database = await openDatabase(provider);
  const started = performance.now();
  await database.writer.authors();
  // Small sizes load fastest with their indexes in place; large ones without.
  if (size > 100_000) await database.writer.withoutIndexes(() => database.writer.posts(0, size));
  else await database.writer.posts(0, size);
  await database.writer.analyze();
  const seedSeconds = round((performance.now() - started) / 1000, 1);
  console.log(`${provider}: ${size.toLocaleString("en")} GIF posts seeded in ${seedSeconds} s`);
  const empty = (): Record<Kind, number[]> => ({ one_word: [], two_words: [], no_search: [] });
  return {
    size,
    database,
    client: createDb(database.config),
    seedSeconds,
    times: empty(),
    posts: { one_word: 0, two_words: 0, no_search: 0 },
  };
}

async function close(instance: Instance): Promise<void> {
  await instance.fetcher?.close();
  await instance.database.writer.close();
  await instance.client.$disconnect();
  await instance.database.drop();
}

/** `count` requests of one kind against one instance, recorded unless warming up. */
async function run(instance: Instance, kind: Kind, count: number, record: boolean, offset: number): Promise<void> {
  const paths = KINDS[kind].map((q) => `/gifs${q}${q ? "&" : "?"}limit=${LIMIT}`);
  for (let i = 0; i < count; i++) {
    const path = paths[(offset + i) % paths.length];
    const started = performance.now();
    const reply = await instance.fetcher!.fetcher(path, nextIp());
    const ms = performance.now() - started;
    if (reply.status !== 200) throw new Error(`GET ${path}: ${reply.status} ${reply.body.slice(0, 300)}`);
    if (!record) continue;
    instance.times[kind].push(ms);
    instance.posts[kind] += (JSON.parse(reply.body) as { posts: unknown[] }).posts.length;
  }
}

function summarise(instance: Instance): Record<Kind, Result> {
  const out = {} as Record<Kind, Result>;
  for (const kind of Object.keys(KINDS) as Kind[]) {
    const sorted = [...instance.times[kind]].sort((a, b) => a - b);
    out[kind] = {
      median_ms: round(quantile(sorted, 0.5)),
      p95_ms: round(quantile(sorted, 0.95)),
      posts_per_page: round(instance.posts[kind] / sorted.length, 1),
    };
  }
  return out;
}

async function runProvider(
  provider: DatabaseProvider,
): Promise<{ figures: Record<string, Record<Kind, Result>>; ratio: number; through: string; seed_s: Record<string, number> }> {
  const instances: Instance[] = [];
  try {
    for (const size of SIZES) instances.push(await seed(provider, size));
    for (const instance of instances) {
      instance.fetcher = await openFetcher(instance.database.config, instance.client);
      setDb(instance.client);
      console.log(`\n── ${provider}, ${instance.size.toLocaleString("en")} posts ──`);
      await printPlans(provider);
      setDb(undefined);
    }
    const kinds = Object.keys(KINDS) as Kind[];
    for (const instance of instances) for (const kind of kinds) await run(instance, kind, WARMUP, false, 0);
    // Rounds of ROUND requests per kind and size, sizes alternating which goes first.
    const ROUND = 5;
    for (let done = 0; done < REQUESTS; done += ROUND) {
      const order = (done / ROUND) % 2 === 0 ? instances : [...instances].reverse();
      for (const kind of kinds) for (const instance of order) await run(instance, kind, Math.min(ROUND, REQUESTS - done), true, done);
    }
    const figures: Record<string, Record<Kind, Result>> = {};
    console.log(`\n${provider} via ${instances[0].fetcher?.through}:`);
    for (const instance of instances) {
      figures[String(instance.size)] = summarise(instance);
      for (const kind of kinds) {
        const f = figures[String(instance.size)][kind];
        console.log(
          `  ${instance.size.toLocaleString("en").padStart(9)} posts  ${kind.padEnd(10)} median ${String(f.median_ms).padStart(7)} ms   p95 ${String(f.p95_ms).padStart(7)} ms   ${f.posts_per_page} posts/page`,
        );
      }
    }
    const small = figures[String(SIZES[0])];
    const large = figures[String(SIZES[SIZES.length - 1])];
    const ratio = Math.max(...kinds.map((k) => large[k].p95_ms / small[k].p95_ms));
    const seedSeconds = Object.fromEntries(instances.map((i) => [String(i.size), i.seedSeconds]));
    return { figures, ratio: round(ratio), through: instances[0].fetcher?.through ?? "", seed_s: seedSeconds };
  } finally {
    for (const instance of instances) await close(instance);
  }
}

async function main(): Promise<void> {
  console.log(
    `GET /gifs latency, ${REQUESTS} requests per kind and size (after ${WARMUP} warm-up), limit ${LIMIT}, sizes ${SIZES.join(", ")}`,
  );
  const result: Record<string, unknown> = {
    bench: "gifs",
    requests: REQUESTS,
    limit: LIMIT,
    sizes: SIZES,
    node: process.version,
    target_ratio: TARGET_RATIO,
  };
  const summary: string[] = [];
  for (const provider of PROVIDERS) {
    const { figures, ratio, through, seed_s } = await runProvider(provider);
    result[provider] = { through, seed_s, ...figures };
    result[`p95_ratio_${provider}`] = ratio;
    summary.push(`${provider}: p95 at ${SIZES[SIZES.length - 1]} / p95 at ${SIZES[0]} = ${ratio} (worst kind; target ≤ ${TARGET_RATIO})`);
  }
  console.log(`\n${summary.join("\n")}`);
  console.log(JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
