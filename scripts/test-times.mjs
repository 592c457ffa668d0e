#!/usr/bin/env node
/**
 * Where a test run's time went: the slowest files of vitest JSON reports (as `.ci/run`
 * writes them, `--reporter=json`), each file's wall time from its start to its end.
 * `node scripts/test-times.mjs REPORT.json [...] [--top N]` (docs/development.md, "Test time").
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";

const args = process.argv.slice(2);
const topAt = args.indexOf("--top");
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 10;

for (const path of args) {
  const report = JSON.parse(readFileSync(path, "utf8"));
  const files = report.testResults
    .map((file) => ({ name: relative(process.cwd(), file.name), ms: file.endTime - file.startTime }))
    .sort((a, b) => b.ms - a.ms);
  const total = files.reduce((sum, file) => sum + file.ms, 0);
  console.log(`${path}: ${files.length} files, ${(total / 1000).toFixed(0)} s of file time`);
  for (const file of files.slice(0, top)) console.log(`  ${(file.ms / 1000).toFixed(1).padStart(6)} s  ${file.name}`);
}
