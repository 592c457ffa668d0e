/**
 * `npm run worker`: the background work of `npm start` without a web server
 * (docs/deploy.md): media jobs (HLS renditions), webhook deliveries, and the periodic
 * sweeps (expired posts and resumable uploads, crash leftovers, jobs of dead workers). For
 * web processes that run none: `next start`, a serverless platform, or web replicas started
 * with BACKGROUND_WORK=off. Several workers may run at once: jobs are claimed, sweeps are
 * safe to repeat. Runs bundled like `npm start` (scripts/launch.mjs).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { env } from "../lib/config/env";
import { dataDir, databaseConfig } from "../lib/db/config";
import { pendingMigrations } from "../lib/db/migrator";
import { keepQueryCompilerOnBaseline } from "../lib/db/query-compiler-tier";
import { MIGRATE_COMMAND } from "../lib/db/readiness";
import { startJobWorkers, stopJobWorkers } from "../lib/jobs";
import { describeMediaTools, formatMediaToolsReport } from "../lib/media/tools";
import { startRecovery } from "../lib/recovery/recover";
import { refreshStoredSettings, watchStoredSettings } from "../lib/settings/stored";
import { registerWebhookJobs } from "../lib/webhooks/delivery-job";

const log = (message: string): void => console.error(`[mediahost worker] ${message}`);

async function main(): Promise<void> {
  keepQueryCompilerOnBaseline();
  mkdirSync(join(dataDir(), "tmp"), { recursive: true });
  // The web side migrates (npm start, or the deploy's build step); a worker never does.
  const pending = await pendingMigrations(databaseConfig());
  if (pending.length) throw new Error(`the database has ${pending.length} pending migrations: run \`${MIGRATE_COMMAND}\` first`);
  // The operator's stored settings, then kept in step with the console (docs/configuration.md).
  await refreshStoredSettings(log);
  const settings = watchStoredSettings({ log });
  log(formatMediaToolsReport(await describeMediaTools()));
  // Job kinds of the features, before the recovery and the workers look their handlers up.
  registerWebhookJobs();
  const stopRecovery = await startRecovery(log);
  startJobWorkers();
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping (running jobs go back to the queue)`);
    stopRecovery();
    settings.stop();
    void stopJobWorkers().then(() => process.exit(0));
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  // On stdout, alone on its line: tests and supervisors wait for it.
  console.log(`worker running (${env().REDIS_URL ? "Redis wake-ups" : "polling the job table"})`);
}

main().catch((error: unknown) => {
  log(`failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
