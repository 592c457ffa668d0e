/** Checks that the SQLite and PostgreSQL migrations stay in step with the one schema and each other (docs/database.md). */
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { DatabaseProvider } from "./config";
import { applyMigrations, diffToSchema, migrationList } from "./migrator";

export const PROVIDERS: readonly DatabaseProvider[] = ["sqlite", "postgres"];

/** Non-empty when the schema changed and nobody ran `npm run db:migration`. PostgreSQL needs a reachable server. */
export function snapshotDrift(provider: DatabaseProvider, postgresUrl?: string): Promise<string> {
  if (provider === "sqlite") return diffToSchema({ provider, url: ":memory:" }, "snapshot");
  if (!postgresUrl) throw new Error("snapshotDrift(postgres) needs a PostgreSQL URL");
  return diffToSchema({ provider, url: postgresUrl }, "snapshot");
}

/** SQLite: the migrations replayed on an in-memory shadow, compared with the schema. */
export function sqliteReplayDrift(): Promise<string> {
  return diffToSchema({ provider: "sqlite", url: ":memory:" }, "migrations");
}

/** Migration folders of one provider only (they are always written in pairs). */
export function folderDrift(): string[] {
  const names = (provider: DatabaseProvider): string[] => migrationList(provider).migrationDirectories.map((d) => d.path);
  const sqlite = names("sqlite");
  const postgres = names("postgres");
  return [
    ...sqlite.filter((n) => !postgres.includes(n)).map((n) => `${n}: only in prisma/sqlite/migrations`),
    ...postgres.filter((n) => !sqlite.includes(n)).map((n) => `${n}: only in prisma/postgres/migrations`),
  ];
}

export function withSchemaParam(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set("schema", schema);
  return u.toString();
}

export async function withTempSchema<T>(baseUrl: string, work: (url: string, schema: string) => Promise<T>): Promise<T> {
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA "${schema}"`);
    return await work(withSchemaParam(baseUrl, schema), schema);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

/** One schema's shape as plain lines, its name removed; column order left out (a later migration's column is last). */
async function catalogLines(client: pg.Client, schema: string): Promise<string[]> {
  const unqualify = (text: string): string => text.split(`"${schema}".`).join("").split(`${schema}.`).join("");
  const columns = await client.query<{ line: string }>(
    `SELECT format('column %s.%s %s null=%s default=%s', table_name, column_name, udt_name, is_nullable, coalesce(column_default, '-')) AS line
       FROM information_schema.columns WHERE table_schema = $1 AND table_name <> '_prisma_migrations'`,
    [schema],
  );
  const indexes = await client.query<{ line: string }>(
    `SELECT format('index %s %s', tablename, indexdef) AS line
       FROM pg_indexes WHERE schemaname = $1 AND tablename <> '_prisma_migrations'`,
    [schema],
  );
  const constraints = await client.query<{ line: string }>(
    `SELECT format('constraint %s %s %s', c.relname, k.conname, pg_get_constraintdef(k.oid)) AS line
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname <> '_prisma_migrations'`,
    [schema],
  );
  return [...columns.rows, ...indexes.rows, ...constraints.rows].map((r) => unqualify(r.line)).sort();
}

/**
 * PostgreSQL: the real migrator's result against the schema created from scratch, through the
 * catalog. The engine's replay check cannot run here: @prisma/adapter-pg 7.10 cannot read the
 * catalog's `"char"` columns.
 */
export async function postgresReplayDrift(baseUrl: string): Promise<string[]> {
  return withTempSchema(baseUrl, (migratedUrl, migrated) =>
    withTempSchema(baseUrl, async (expectedUrl, expected) => {
      await applyMigrations({ provider: "postgres", url: migratedUrl });
      const script = await diffToSchema({ provider: "postgres", url: expectedUrl }, "empty");
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      try {
        await client.query(`SET search_path TO "${expected}"`);
        await client.query(script);
        const fromMigrations = await catalogLines(client, migrated);
        const fromSchema = await catalogLines(client, expected);
        // Guards the comparison itself: two empty catalogs would agree vacuously.
        if (fromSchema.length === 0) throw new Error(`the schema script created nothing in "${expected}"`);
        return [
          ...fromMigrations.filter((l) => !fromSchema.includes(l)).map((l) => `only after migrations: ${l}`),
          ...fromSchema.filter((l) => !fromMigrations.includes(l)).map((l) => `only in the schema: ${l}`),
        ];
      } finally {
        await client.end();
      }
    }),
  );
}
