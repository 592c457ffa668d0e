/**
 * The real server for black-box tests: a production build (reused while the sources are
 * unchanged, see lib/server/build.ts) served by `npm start` (scripts/launch.mjs) in a child process, on a
 * free port, with its own DATA_DIR. Parallel test files share one build.
 *
 * On embedded SQLite by default; with TEST_DATABASE_URL the server gets a new schema of that
 * PostgreSQL database, and with TEST_REDIS_URL that Redis (and a job queue of its own), as
 * `.ci/run`'s PostgreSQL + Redis pass sets them. `server.env` names the database for the
 * admin CLI.
 */
import { createServer as createNetServer } from "node:net";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { ensureBuild } from "@/lib/server/build";
import { migratePostgresSchema, migrateSqliteFile } from "./migrate";

export interface TestServer {
  /** e.g. http://127.0.0.1:40123 */
  url: string;
  dataDir: string;
  /** DATA_DIR, DATABASE_URL and REDIS_URL of the server: run the admin CLI with these. */
  env: Record<string, string>;
  /** Everything the server printed so far, for failure messages. */
  output(): string;
  /** SIGTERM, then waits for the exit; resolves with the exit code. Removes DATA_DIR. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash: nothing runs on the way out), then waits for the exit. DATA_DIR stays. */
  kill(): Promise<void>;
  /** The server's process id (its media tools are its children). */
  pid: number;
}

export interface TestServerOptions {
  /** Start on this existing DATA_DIR (a restart after kill()) instead of a fresh one. */
  dataDir?: string;
  /**
   * Let the server migrate its empty database at start-up, as a fresh deployment does (the
   * end-to-end server does). Otherwise a new database is handed over already migrated by
   * tests/support/migrate.ts: the real migrator (a child process loading Prisma's schema
   * engine) was about half of every test server's start.
   */
  migrateAtStart?: boolean;
  /**
   * Rewrites the server's PostgreSQL URL (its own schema already in it), e.g. to reach the
   * database through a proxy the test controls (tests/faults). Not called on SQLite.
   */
  databaseUrl?: (url: string) => string;
}

const root = fileURLToPath(new URL("../..", import.meta.url));
const READY_TIMEOUT_MS = 60_000;

/** The server's database and Redis: the test run's PostgreSQL and Redis when it has them, else embedded. */
export async function services(): Promise<{ env: Record<string, string>; schema?: string; drop(): Promise<void> }> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.TEST_REDIS_URL;
  const suffix = randomBytes(6).toString("hex");
  const env: Record<string, string> = { DATABASE_URL: "", REDIS_URL: redisUrl ?? "" };
  // Servers share the Redis: each gets its own job queue and its own counters (the sign-up
  // limit is per address, and every server of a run sees 127.0.0.1).
  if (redisUrl) {
    env.JOB_QUEUE_NAME = `test-${suffix}`;
    env.REDIS_PREFIX = `test-${suffix}:`;
  }
  if (!pgUrl) return { env, drop: async () => {} };
  const schema = `s_${suffix}`;
  const query = async (sql: string): Promise<void> => {
    const client = new pg.Client({ connectionString: pgUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  // The server migrates the empty schema at start-up, as a fresh deployment does.
  await query(`CREATE SCHEMA "${schema}"`);
  const url = new URL(pgUrl);
  url.searchParams.set("schema", schema);
  env.DATABASE_URL = url.toString();
  return { env, schema, drop: () => query(`DROP SCHEMA "${schema}" CASCADE`) };
}

export async function startTestServer(extraEnv: Record<string, string> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  await ensureBuild(root, { stdio: "pipe" });
  const external = await services();
  if (options.databaseUrl && external.env.DATABASE_URL) external.env.DATABASE_URL = options.databaseUrl(external.env.DATABASE_URL);
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "mediahost-server-"));
  if (!options.dataDir && !options.migrateAtStart) await premigrate(dataDir, external, extraEnv.DATABASE_URL);
  // The child is a production server: none of vitest's variables, and NODE_ENV its own.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  const env: NodeJS.ProcessEnv = {
    ...inherited,
    NODE_ENV: "production",
    PORT: "0",
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    NEXT_TELEMETRY_DISABLED: "1",
    // As `npm start` sets it (package.json).
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2",
    // No text reading unless a test asks for it: its background job commits a while after an
    // image upload, which empties the read caches that tests of those caches count on
    // (tests/ocr/ocr.test.ts runs the job itself).
    OCR: "off",
    ...external.env,
    ...extraEnv,
  };
  // What `npm start` runs, without npm in between: one process, so signals reach the server.
  // Its node flag too (package.json): a young generation of 2 x 8 MB.
  const child: ChildProcess = spawn(process.execPath, ["--max-semi-space-size=8", "scripts/launch.mjs"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));

  const ready = new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`server not ready after ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      // TEST_SERVER_ECHO=1: the production servers' output in the test log too (a 500 there names its error).
      if (process.env.TEST_SERVER_ECHO) process.stderr.write(chunk);
      const match = /^listening on (\S+)$/m.exec(output);
      if (match) {
        clearTimeout(timer);
        done(match[1]);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      fail(new Error(`server exited (${code}) before it was ready:\n${output}`));
    });
  });
  // A server that never became ready is not left running (an orphan with its own DATA_DIR).
  const url = await ready.catch(async (error: unknown) => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    throw error;
  });

  return {
    url,
    dataDir,
    pid: child.pid!,
    env: { DATA_DIR: dataDir, DATABASE_URL: env.DATABASE_URL ?? "", REDIS_URL: env.REDIS_URL ?? "" },
    output: () => output,
    async kill() {
      // The whole tree, as a container or systemd unit dies: ffmpeg children included.
      const tree = [...descendants(child.pid!), child.pid!];
      for (const pid of tree) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const force = setTimeout(() => child.kill("SIGKILL"), 15_000);
      const code = await exited;
      clearTimeout(force);
      rmSync(dataDir, { recursive: true, force: true });
      await external.drop();
      return code;
    },
  };
}

/**
 * Migrates the database a new server is about to get: the embedded SQLite file of its new
 * DATA_DIR, or its new PostgreSQL schema. A database a test names itself (another server's,
 * to share it) is left as it is.
 */
async function premigrate(dataDir: string, external: Awaited<ReturnType<typeof services>>, named: string | undefined): Promise<void> {
  if (named !== undefined && named !== external.env.DATABASE_URL && named !== "") return;
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (named !== "" && external.schema && pgUrl) await migratePostgresSchema(pgUrl, external.schema, { create: false });
  else migrateSqliteFile(join(dataDir, "mediahost.db"));
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/** Every process below `pid` (from /proc: each process's parent is field 4 of its stat). */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // exited meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      found.push(c);
      walk(c);
    }
  };
  walk(pid);
  return found;
}

/**
 * The admin CLI as operators run it (`npm run -s admin`, the bundled CLI), against a test
 * server's database: its one JSON object.
 */
export async function adminCli(server: Pick<TestServer, "env">, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, ["scripts/launch.mjs", "admin", ...args], {
    cwd: root,
    env: { ...process.env, ...server.env },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}
