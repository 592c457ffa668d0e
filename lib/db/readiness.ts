/**
 * Readiness (docs/deploy.md, "Readiness"): whether this process can serve what needs the
 * database and the files. `npm start` migrates before it serves, but `next start`, a
 * serverless function or an instance started before `npm run db:migrate` may find the
 * schema behind the code: those answer 503 `unavailable` naming the command instead of a
 * 500 per request (the dispatcher, the page proxy, /healthz).
 *
 * Migrations only ever move forward, so once none are pending the answer is kept for the
 * life of the process; until then every request checks again (one query).
 */
import { accessSync, constants, mkdirSync } from "node:fs";
import { join } from "node:path";
import { configOf, db } from "./client";
import { databaseConfig, dataDir } from "./config";
import { pendingMigrations } from "./migrator";
import { env } from "@/lib/config/env";
import { DomainError } from "@/lib/errors";

export const MIGRATE_COMMAND = "npm run db:migrate";

export interface SchemaState {
  ready: boolean;
  /** Migrations this code has that the database lacks. */
  pending: string[];
}

// On globalThis: the production server holds two copies of this module (the custom server's
// bundle and Next's); what one learnt the other must not ask again (of a database that may
// be away by then).
const known = ((globalThis as unknown as { __mediahostSchemaReady?: { ready: boolean } }).__mediahostSchemaReady ??= { ready: false });
let inFlight: Promise<SchemaState> | undefined;

/**
 * The schema's state; errors (the database unreachable) reject, for the caller to report as
 * such. Concurrent callers share one check; a pending state is not remembered, so the first
 * request after `npm run db:migrate` sees the schema ready.
 */
export function schemaState(): Promise<SchemaState> {
  if (known.ready) return Promise.resolve({ ready: true, pending: [] });
  // The database this process uses (a test or the CLI may have swapped the client).
  inFlight ??= pendingMigrations(configOf(db()) ?? databaseConfig())
    .then((pending) => {
      if (!pending.length) known.ready = true;
      return { ready: pending.length === 0, pending };
    })
    .finally(() => (inFlight = undefined));
  return inFlight;
}

/** What the last finished check knew, without waiting: for synchronous error paths. */
export const schemaKnownReady = (): boolean => known.ready;

/** The message of the 503 a request gets while migrations are pending. */
export function notMigratedMessage(pending: readonly string[]): string {
  const count = pending.length ? ` (${pending.length} pending migration${pending.length === 1 ? "" : "s"})` : "";
  return `The database is not migrated${count}: run \`${MIGRATE_COMMAND}\`, then retry.`;
}

/** Whether an error is Prisma's "table/column does not exist" (P2021/P2022): a schema behind the code. */
export function isMissingSchemaError(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? (error as { code: unknown }).code : undefined;
  return code === "P2021" || code === "P2022";
}

/** Disk storage's folders must be writable (S3 and Blob are checked by their own errors). Returns the problem, or null. */
export function storageProblem(): string | null {
  if (env().STORAGE !== "disk") return null;
  for (const dir of [join(dataDir(), "files"), join(dataDir(), "tmp")]) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
    } catch (error) {
      return `storage folder ${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
  }
  return null;
}

/**
 * For request paths: resolves at once once the schema is known migrated; otherwise 503
 * `unavailable` naming the command while migrations are pending. A check that fails (the
 * database away) lets the request go on and meet that error itself.
 */
export async function requireMigratedSchema(): Promise<void> {
  if (known.ready) return;
  const state = await schemaState().catch(() => null);
  if (state && !state.ready) throw new DomainError("unavailable", notMigratedMessage(state.pending));
}
