/**
 * Readiness (docs/deploy.md, "Readiness"): a schema behind the code answers 503 naming the
 * command, not a 500 per request. Migrations only move forward, so "none pending" is kept for
 * the life of the process; until then every request checks again.
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
  pending: string[];
}

// On globalThis: the production server holds two copies of this module, and one must not ask
// again what the other learnt (of a database that may be away by then).
const known = ((globalThis as unknown as { __mediahostSchemaReady?: { ready: boolean } }).__mediahostSchemaReady ??= { ready: false });
let inFlight: Promise<SchemaState> | undefined;

/** Concurrent callers share one check; a pending state is not remembered, so the request after `db:migrate` sees it ready. */
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

/** For synchronous error paths. */
export const schemaKnownReady = (): boolean => known.ready;

export function notMigratedMessage(pending: readonly string[]): string {
  const count = pending.length ? ` (${pending.length} pending migration${pending.length === 1 ? "" : "s"})` : "";
  return `The database is not migrated${count}: run \`${MIGRATE_COMMAND}\`, then retry.`;
}

/** Prisma's P2021/P2022: a schema behind the code. */
export function isMissingSchemaError(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? (error as { code: unknown }).code : undefined;
  return code === "P2021" || code === "P2022";
}

/** Disk storage's folders must be writable (S3 and Blob show in their own errors). */
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

/** Resolves at once once migrated; a check that fails (database away) lets the request meet that error itself. */
export async function requireMigratedSchema(): Promise<void> {
  if (known.ready) return;
  const state = await schemaState().catch(() => null);
  if (state && !state.ready) throw new DomainError("unavailable", notMigratedMessage(state.pending));
}
