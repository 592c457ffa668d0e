/**
 * Offline migrations (docs/database.md): Prisma's schema engine as WebAssembly through our
 * driver adapter, since the CLI downloads a native engine an air-gapped host cannot. History
 * goes in the standard `_prisma_migrations` table, so the Prisma CLI sees the same.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import { postgresTarget, type DatabaseConfig, type DatabaseProvider } from "./config";
import { env } from "@/lib/config/env";
import { createAdapter } from "./adapter";

/** Its .d.ts is not reachable as a type import here. */
interface SchemaEngine {
  applyMigrations(input: { migrationsList: MigrationList; filters: Filters }): Promise<{ appliedMigrationNames: string[] }>;
  diff(params: {
    from: DiffTarget;
    to: DiffTarget;
    script: boolean;
    exitCode: boolean | null;
    filters: Filters;
  }): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
}
interface Filters {
  externalTables: string[];
  externalEnums: string[];
}
interface MigrationList {
  baseDir: string;
  lockfile: { path: string; content: string | null };
  shadowDbInitScript: string;
  migrationDirectories: {
    path: string;
    migrationFile: { path: string; content: { tag: "ok"; value: string } | { tag: "error"; value: string } };
  }[];
}
type DiffTarget =
  | { tag: "empty" }
  | { tag: "schemaDatamodel"; files: { path: string; content: string }[] }
  | ({ tag: "migrations" } & MigrationList);

const FILTERS: Filters = { externalTables: [], externalEnums: [] };
const projectRoot = (): string => resolve(/*turbopackIgnore: true*/ env().APP_ROOT || process.cwd());

export const prismaDir = (provider: DatabaseProvider): string => join(projectRoot(), "prisma", provider);
export const migrationsDir = (provider: DatabaseProvider): string => join(prismaDir(provider), "migrations");
export const snapshotPath = (provider: DatabaseProvider): string => join(migrationsDir(provider), "schema.snapshot.prisma");

let wasmModule: Promise<{ SchemaEngine: { new: (...args: unknown[]) => Promise<SchemaEngine> } }> | undefined;

function loadWasm() {
  wasmModule ??= (async () => {
    const require = createRequire(join(projectRoot(), "package.json"));
    const bgPath = require.resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bg = await import(bgPath);
    const bytes = await readFile(join(dirname(bgPath), "schema_engine_bg.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, { "./schema_engine_bg.js": bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return bg;
  })();
  return wasmModule;
}

/** The engine never closes the connections it opens; an open pg pool would keep the process alive 10 s, so they are tracked and closed here. */
function trackConnections(factory: SqlMigrationAwareDriverAdapterFactory): {
  factory: SqlMigrationAwareDriverAdapterFactory;
  closeAll: () => Promise<void>;
} {
  const opened: SqlDriverAdapter[] = [];
  const track = async (connect: () => Promise<SqlDriverAdapter>): Promise<SqlDriverAdapter> => {
    const adapter = await connect();
    opened.push(adapter);
    return adapter;
  };
  return {
    factory: {
      provider: factory.provider,
      adapterName: factory.adapterName,
      connect: () => track(() => factory.connect()),
      connectToShadowDb: () => track(() => factory.connectToShadowDb()),
    },
    // allSettled: the engine may already have disposed some (the shadow database).
    closeAll: async () => void (await Promise.allSettled(opened.splice(0).map((a) => a.dispose()))),
  };
}

async function openEngine(config: DatabaseConfig, schemaPath: string): Promise<SchemaEngine & { close(): Promise<void> }> {
  const { SchemaEngine } = await loadWasm();
  const { factory, closeAll } = trackConnections(createAdapter(config, { bounded: false }));
  const log = env().MIGRATE_DEBUG ? (msg: string) => console.error(msg) : () => {};
  const engine = await SchemaEngine.new(
    { datamodels: [[schemaPath, readFileSync(schemaPath, "utf8")]] },
    log,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  return Object.assign(engine, {
    close: async (): Promise<void> => {
      engine.free();
      await closeAll();
    },
  });
}

export function migrationList(provider: DatabaseProvider): MigrationList {
  const baseDir = migrationsDir(provider);
  const lockPath = join(baseDir, "migration_lock.toml");
  const dirs = existsSync(baseDir)
    ? readdirSync(baseDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(join(baseDir, d.name, "migration.sql")))
        .map((d) => d.name)
        .sort()
    : [];
  return {
    baseDir,
    lockfile: { path: "migration_lock.toml", content: existsSync(lockPath) ? readFileSync(lockPath, "utf8") : null },
    shadowDbInitScript: "",
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: { path: "migration.sql", content: { tag: "ok", value: readFileSync(join(baseDir, name, "migration.sql"), "utf8") } },
    })),
  };
}

/**
 * Pending migrations read with the plain driver: the schema engine's memory is never given
 * back (docs/performance.md, "Migrations in a child process, only when pending"), so a server
 * checks at every start and leaves applying to a short-lived process.
 */
export async function pendingMigrations(config: DatabaseConfig): Promise<string[]> {
  const names = migrationList(config.provider).migrationDirectories.map((d) => d.path);
  const done = await finishedMigrations(config);
  return names.filter((name) => !done.has(name));
}

const FINISHED_SQL = `SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;

async function finishedMigrations(config: DatabaseConfig): Promise<Set<string>> {
  if (config.provider === "sqlite") {
    if (!existsSync(config.url)) return new Set();
    const { default: Database } = await import("better-sqlite3");
    const conn = new Database(config.url, { readonly: true, fileMustExist: true });
    try {
      const table = conn.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '_prisma_migrations'`).get();
      if (!table) return new Set();
      return new Set(conn.prepare(FINISHED_SQL).pluck().all() as string[]);
    } finally {
      conn.close();
    }
  }
  const { default: pg } = await import("pg");
  const target = postgresTarget(config.url);
  const schema = target.schema ?? "public";
  // Bounded (docs/faults.md): /healthz and the readiness check ask this of a database that may not answer.
  const connect = env().DATABASE_CONNECT_TIMEOUT_MS ?? 2000;
  const query = env().DATABASE_QUERY_TIMEOUT_MS ?? 3000;
  const client = new pg.Client({
    connectionString: target.connectionString,
    ...(connect > 0 ? { connectionTimeoutMillis: connect } : {}),
    ...(query > 0 ? { query_timeout: query } : {}),
  });
  client.on("error", () => undefined);
  let settled = false;
  try {
    await client.connect();
    const exists = await client.query(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = '_prisma_migrations'`,
      [schema],
    );
    if (!exists.rowCount) return new Set();
    const rows = await client.query<{ migration_name: string }>(
      FINISHED_SQL.replace("_prisma_migrations", `"${schema.replace(/"/g, "")}"._prisma_migrations`),
    );
    settled = true;
    return new Set(rows.rows.map((r) => r.migration_name));
  } finally {
    // After a failure the connection may be one that does not answer: not waited for.
    if (settled) await client.end();
    else void client.end().catch(() => undefined);
  }
}

export async function applyMigrations(config: DatabaseConfig): Promise<string[]> {
  const engine = await openEngine(config, join(prismaDir(config.provider), "schema.prisma"));
  try {
    const { appliedMigrationNames } = await engine.applyMigrations({
      migrationsList: migrationList(config.provider),
      filters: FILTERS,
    });
    return appliedMigrationNames;
  } finally {
    await engine.close();
  }
}

/** SQL from `from` (the snapshot, the replayed migrations folder, or nothing) to the current schema. */
export async function diffToSchema(config: DatabaseConfig, from: "snapshot" | "migrations" | "empty"): Promise<string> {
  if (config.provider === "postgres" && from === "migrations") {
    // @prisma/adapter-pg 7.10 opens its "shadow database" on the configured database itself, so the
    // engine would replay migrations into real data; and it cannot read the catalog's "char" columns.
    throw new Error('diffToSchema(postgres, "migrations") is not supported; use postgresReplayDrift() from lib/db/drift');
  }
  const schemaPath = join(prismaDir(config.provider), "schema.prisma");
  const engine = await openEngine(config, schemaPath);
  try {
    const snapshot = snapshotPath(config.provider);
    const source: DiffTarget =
      from === "empty"
        ? { tag: "empty" }
        : from === "migrations"
          ? { tag: "migrations", ...migrationList(config.provider) }
          : existsSync(snapshot)
            ? { tag: "schemaDatamodel", files: [{ path: snapshot, content: readFileSync(snapshot, "utf8") }] }
            : { tag: "empty" };
    const result = await engine.diff({
      from: source,
      to: { tag: "schemaDatamodel", files: [{ path: schemaPath, content: readFileSync(schemaPath, "utf8") }] },
      script: true,
      exitCode: null,
      filters: FILTERS,
    });
    const sql = (result.stdout ?? "").trim();
    return sql === "-- This is an empty migration." ? "" : sql;
  } finally {
    await engine.close();
  }
}
