#!/usr/bin/env node
/**
 * `npm run fuzz`: the generated-input tests of `npm test` with ten times the cases
 * (docs/fuzzing.md): 20 000 HTTP requests against the real server and 3 000 cases per
 * media parser property, from a random seed printed first (FUZZ_SEED=n replays a run;
 * FUZZ_RUNS and FUZZ_MEDIA_RUNS change the counts).
 */
import { spawnSync } from "node:child_process";

const seed = process.env.FUZZ_SEED || String(Math.floor(Math.random() * 2 ** 31));
const env = {
  ...process.env,
  FUZZ_SEED: seed,
  FUZZ_RUNS: process.env.FUZZ_RUNS || "20000",
  FUZZ_MEDIA_RUNS: process.env.FUZZ_MEDIA_RUNS || "3000",
};
console.log(
  `fuzz: seed ${seed}, ${env.FUZZ_RUNS} HTTP cases, ${env.FUZZ_MEDIA_RUNS} cases per media property (replay: FUZZ_SEED=${seed} npm run fuzz)`,
);
const vitest = new URL("../node_modules/.bin/vitest", import.meta.url).pathname;
const result = spawnSync(vitest, ["run", "tests/fuzz", "tests/media/parsers-fuzz.test.ts", ...process.argv.slice(2)], {
  stdio: "inherit",
  env,
});
console.log(`fuzz: seed ${seed} ${result.status === 0 ? "passed" : "FAILED"}`);
process.exit(result.status ?? 1);
