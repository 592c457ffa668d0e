import { mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";

// Each test file gets its own DATA_DIR inside the run's (files run in parallel workers, and
// checks such as "no temporary files left" must only see their own file's work). Shared,
// run-wide things (generated media fixtures) stay in TEST_RUN_DIR.
const root = process.env.TEST_RUN_DIR || process.env.DATA_DIR!;
process.env.TEST_RUN_DIR = root;
mkdirSync(root, { recursive: true });
process.env.DATA_DIR = mkdtempSync(join(root, "file-"));
