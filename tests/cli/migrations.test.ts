import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { ensureMigrated, pendingMigrations } from "@/lib/cli/migrations";
import { createDb } from "@/lib/db/client";
import type { DatabaseConfig } from "@/lib/db/config";
import { migrationList } from "@/lib/db/migrator";

/**
 * An empty database of the provider under test, and how to remove it. (The databases of
 * tests/support/db.ts run the migration SQL directly, without the migrations table.)
 */
async function emptyDatabase(): Promise<{ config: DatabaseConfig; drop: () => Promise<void> }> {
  const pgUrl = process.env.TEST_DATABASE_URL;
  if (pgUrl) {
    const schema = `mig_${randomBytes(6).toString("hex")}`;
    const url = new URL(pgUrl);
    url.searchParams.set("schema", schema);
    return {
      config: { provider: "postgres", url: url.toString() },
      async drop() {
        const client = new pg.Client({ connectionString: pgUrl });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "mediahost-mig-"));
  return { config: { provider: "sqlite", url: join(dir, "new.db") }, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

describe("CLI migrations", () => {
  it("finds every migration pending on an empty database, applies them once, then none", async () => {
    const { config, drop } = await emptyDatabase();
    const client = createDb(config);
    try {
      const all = migrationList(config.provider).migrationDirectories.map((d) => d.path);
      expect(all.length).toBeGreaterThan(0);
      expect(await pendingMigrations(client, config.provider)).toEqual(all);
      expect(await ensureMigrated(client, config)).toEqual(all);
      expect(await pendingMigrations(client, config.provider)).toEqual([]);
      expect(await ensureMigrated(client, config)).toEqual([]);
      // The same connection keeps working after the migrator has closed its own.
      expect(await client.user.count()).toBe(0);
    } finally {
      await client.$disconnect();
      await drop();
    }
  });
});
