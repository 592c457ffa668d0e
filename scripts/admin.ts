/**
 * `npm run -s admin -- <noun> <verb> [--flag value ...]`: the operator's command line
 * (docs/admin-cli.md). Prints exactly one JSON object on
 * stdout, exits 0 on success and 1 with `{"error": {"type", "message"}}` on failure.
 */

import { keepQueryCompilerOnBaseline } from "../lib/db/query-compiler-tier";

// Scripts and tools wait for exactly one JSON object on stdout, so nothing else may
// write there: any library output (Prisma warnings, a stray console.log) is sent to
// stderr, and the answer goes through the original stdout writer kept here. Installed
// before anything else is imported, hence the dynamic imports below.
const writeAnswer = process.stdout.write.bind(process.stdout);
process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;

// Before the first query (lib/db/query-compiler-tier.ts).
keepQueryCompilerOnBaseline();

const { runAdmin } = await import("../lib/cli/admin");
const { ensureMigrated } = await import("../lib/cli/migrations");
const { db } = await import("../lib/db/client");
const { databaseConfig } = await import("../lib/db/config");
const { writeJson } = await import("../lib/cli/json-out");

const { exitCode, output } = await runAdmin(process.argv.slice(2), {
  // Same configuration as the server; migrates a new or outdated database first.
  beforeRun: () => ensureMigrated(db(), databaseConfig()),
});

// Exit explicitly (a PostgreSQL pool would keep the process alive for its idle timeout),
// but only once the answer has been handed to stdout. Written in pieces: an import's list of
// skipped items is read from its file as it is written, never held whole (lib/cli/json-out.ts).
const flush = (text: string) => new Promise<void>((resolve) => writeAnswer(text, () => resolve()));
await writeJson(output, flush);
writeAnswer("\n", () => process.exit(exitCode));
