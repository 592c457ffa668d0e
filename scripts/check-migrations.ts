/**
 * `npm run db:check`: fails (exit 1) when the SQLite and PostgreSQL migrations drift from
 * the schema or from each other. The PostgreSQL checks need a server to work in; they
 * use TEST_DATABASE_URL (temporary schemas, dropped afterwards) and are reported as not
 * run without it. See docs/database.md.
 */
import { folderDrift, postgresReplayDrift, snapshotDrift, sqliteReplayDrift } from "../lib/db/drift";

interface Check {
  name: string;
  run: () => Promise<string[]>;
}

const lines = (sql: string): string[] => (sql ? [sql] : []);
const postgresUrl = process.env.TEST_DATABASE_URL || "";

const checks: Check[] = [
  { name: "migration folders match between providers", run: async () => folderDrift() },
  { name: "sqlite: schema has a migration (snapshot is current)", run: async () => lines(await snapshotDrift("sqlite")) },
  { name: "sqlite: migrations replay to exactly the schema", run: async () => lines(await sqliteReplayDrift()) },
];
if (postgresUrl) {
  checks.push(
    {
      name: "postgres: schema has a migration (snapshot is current)",
      run: async () => lines(await snapshotDrift("postgres", postgresUrl)),
    },
    { name: "postgres: migrations replay to exactly the schema", run: () => postgresReplayDrift(postgresUrl) },
  );
}

let failed = 0;
for (const check of checks) {
  let problems: string[];
  try {
    problems = await check.run();
  } catch (error) {
    problems = [`check could not run: ${error instanceof Error ? error.message : String(error)}`];
  }
  if (problems.length === 0) {
    console.log(`ok    ${check.name}`);
  } else {
    failed++;
    console.log(`FAIL  ${check.name}`);
    for (const problem of problems) console.log(problem.replace(/^/gm, "      "));
  }
}
if (!postgresUrl) console.log("note  postgres checks not run: set TEST_DATABASE_URL=postgresql://... to include them");
if (failed > 0) {
  console.log(`\n${failed} check(s) failed. After changing prisma/schema.base.prisma run: npm run db:migration -- <name>`);
  process.exit(1);
}
