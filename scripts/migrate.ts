/**
 * `npm run db:migrate`: applies pending migrations to the configured database
 * (DATABASE_URL, or the embedded SQLite file under DATA_DIR) and prints one JSON object.
 */
import { databaseConfig } from "../lib/db/config";
import { applyMigrations } from "../lib/db/migrator";

const config = databaseConfig();
try {
  const applied = await applyMigrations(config);
  console.log(JSON.stringify({ provider: config.provider, applied }));
} catch (error) {
  console.log(JSON.stringify({ error: { type: "migration_failed", message: error instanceof Error ? error.message : String(error) } }));
  process.exit(1);
}
