/**
 * `npm start` (and `npm run dev`, which passes --dev): everything a fresh checkout needs
 * to serve. Builds when the sources changed since the last build, creates the data
 * folders, applies pending migrations, then serves on PORT (default 3000). `npm start`
 * runs this file bundled into plain JavaScript (scripts/launch.mjs); `npm run dev` through tsx.
 */
import { checkSettings } from "../lib/server/settings";
import { settlePublicUrl } from "../lib/config/process-env";
import { execFile } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import Database from "better-sqlite3";
import { env } from "../lib/config/env";
import { dataDir, databaseConfig } from "../lib/db/config";
import { pendingMigrations } from "../lib/db/migrator";
import { keepQueryCompilerOnBaseline } from "../lib/db/query-compiler-tier";
import { startJobWorkers, stopJobWorkers } from "../lib/jobs";
import { describeMediaTools, formatMediaToolsReport, formatTextReadingReport } from "../lib/media/tools";
import { recoverySettings, startRecovery } from "../lib/recovery/recover";
import { registerWebhookJobs } from "../lib/webhooks/delivery-job";
import { setupCode, setupPending } from "../lib/accounts/setup";
import { refreshStoredSettings, watchStoredSettings } from "../lib/settings/stored";
import { ensureBuild } from "../lib/server/build";
import { shutdownOnSignals, startServer } from "../lib/server/server";

const log = (message: string): void => console.error(`[mediahost] ${message}`);

/**
 * WAL lets readers go on while one connection writes (the server and the admin CLI share
 * the file). It is a property of the database file, so setting it once here persists.
 */
function useWriteAheadLog(file: string): void {
  const sqlite = new Database(file);
  try {
    sqlite.pragma("journal_mode = WAL");
  } finally {
    sqlite.close();
  }
}

/**
 * Applies pending migrations in a child process (`npm run db:migrate`'s script): the schema
 * engine is a WebAssembly module whose memory a long-running server would keep for good.
 * Nothing pending (the usual start) costs one query and no process.
 */
async function migrate(config: ReturnType<typeof databaseConfig>): Promise<string[]> {
  if (!(await pendingMigrations(config)).length) return [];
  // From the working directory (the project root under npm): this file also runs bundled
  // from a cache folder (scripts/launch.mjs), where its own directory is elsewhere.
  const script = resolve("scripts", "migrate.ts");
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script], { env: process.env, maxBuffer: 1 << 20 }));
  } catch (error) {
    const out = (error as { stdout?: string }).stdout ?? "";
    throw new Error(`migrations failed: ${out.trim() || (error instanceof Error ? error.message : String(error))}`);
  }
  const result = JSON.parse(stdout.trim().split("\n").pop() ?? "{}") as { applied?: string[] };
  return result.applied ?? [];
}

/**
 * How far V8 lets the old generation grow past what survived the last full collection
 * before it collects again (V8's own default adapts between 10 % and 300 %). Under load a
 * server produces garbage much faster than it keeps data: with the default the heap grew
 * to several times its live size, and a bound of 50 % kept the peak far lower
 * (docs/performance.md, "--heap-growing-percent=50").
 * V8 reads this setting at every collection, so it can be set here rather than on the
 * command line. HEAP_GROWING_PERCENT overrides it (0 leaves V8's default).
 */
function limitHeapGrowth(): void {
  // Checked by lib/config/env.ts: a whole number, or the start stops there.
  const percent = env().HEAP_GROWING_PERCENT ?? 50;
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}

async function main(): Promise<void> {
  const dev = process.argv.includes("--dev");
  // Every setting, before anything else: a bad value stops the start here, naming its variable.
  checkSettings();
  limitHeapGrowth();
  keepQueryCompilerOnBaseline();
  const root = resolve(process.cwd());

  // `next dev` compiles on demand into its own folder; only production needs a build.
  if (!dev) await ensureBuild(root, { log });

  const data = dataDir();
  mkdirSync(join(data, "files"), { recursive: true });

  const config = databaseConfig();
  if (config.provider === "sqlite") useWriteAheadLog(config.url);
  const applied = await migrate(config);
  log(
    `${config.provider === "sqlite" ? `database ${config.url}` : "PostgreSQL database"}: ` +
      (applied.length ? `applied ${applied.join(", ")}` : "up to date"),
  );
  // The operator's settings from the console, kept in step with every other instance
  // (docs/configuration.md, "Settings in the console"); the environment still wins.
  await refreshStoredSettings(log);
  const settings = watchStoredSettings({ log });
  // Which ffmpeg reads the uploads, and its version: the operator checks it gets security
  // updates (docs/media.md, "Binaries"). A bad FFMPEG_SOURCE/PATH setting stops the start here.
  const tools = await describeMediaTools();
  log(formatMediaToolsReport(tools));
  // Reading text in images (docs/ocr.md): Tesseract's version, or once why it is off.
  log(formatTextReadingReport(tools));

  // What a crashed predecessor left (temporary files, half-stored uploads and their quota,
  // running jobs) is removed before anything is served, then swept again periodically
  // (docs/crash-recovery.md).
  // Job kinds of the features, before the recovery and the workers look their handlers up.
  registerWebhookJobs();
  // BACKGROUND_WORK=off: the one start-up sweep, then no timer and no job workers; a
  // separate `npm run worker` (or the cron endpoint) does that work (docs/deploy.md).
  const background = env().BACKGROUND_WORK;
  const stopRecovery = await startRecovery(log, background ? undefined : { ...recoverySettings(), intervalMs: 0 });

  const server = await startServer({
    port: env().PORT,
    // HOST, not HOSTNAME: Docker and Kubernetes set HOSTNAME to the machine's name, and
    // binding to that would leave localhost:PORT unanswered inside the container. Unset:
    // every interface, IPv4 and IPv6, as `next start` binds without -H (docs/deploy.md).
    hostname: env().HOST,
    dev,
    dir: root,
  });
  // PORT=0 lets the OS pick the port, so the default PUBLIC_URL (http://localhost:PORT,
  // lib/config/env.ts) is only known now; set it before anything reads the configuration.
  settlePublicUrl(Number(new URL(server.url).port));
  // Background jobs (HLS renditions) run next to the server; jobs left by a previous run
  // are picked up now. Stopping gives a running job back to the queue for the next start.
  if (background) startJobWorkers();
  else log("BACKGROUND_WORK=off: no media jobs, webhook deliveries or periodic sweeps here (npm run worker does them)");
  shutdownOnSignals(
    {
      ...server,
      close: () => {
        stopRecovery();
        settings.stop();
        return stopJobWorkers().then(() => server.close());
      },
    },
    log,
  );
  // No administrator yet: the one-time code that /setup asks for (docs/setup.md).
  if (await setupPending()) log(`no administrator yet: open ${env().PUBLIC_URL}/setup with the set-up code ${setupCode()}`);
  // On stdout, alone on its line: tests and scripts wait for it.
  console.log(`listening on ${server.url}`);
}

main().catch((error: unknown) => {
  log(`failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
