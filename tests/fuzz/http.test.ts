/**
 * Hostile input, generated (docs/fuzzing.md): fast-check requests against the real server
 * over raw sockets. `npm test` runs FUZZ_RUNS (default 2 000) cases from a fixed seed;
 * `npm run fuzz` runs 20 000 from a printed random seed (FUZZ_SEED replays one).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RSS_GROWTH_LIMIT, rssBytes, runHttpFuzz, startFuzzTarget, type FuzzTarget } from "./http-harness";

const runs = Number(process.env.FUZZ_RUNS || 2000);
const seed = Number(process.env.FUZZ_SEED || 20261126);

describe("generated hostile requests against the real server", () => {
  let target: FuzzTarget;
  beforeAll(async () => {
    target = await startFuzzTarget();
  }, 180_000);
  afterAll(async () => {
    if (target) await target.server.stop();
  });

  it(`${runs} cases: no 5xx, documented errors, server up, RSS bounded`, async () => {
    const collect = process.env.FUZZ_COLLECT === "1";
    const result = await runHttpFuzz(target, { numRuns: runs, seed, collect });
    if (collect) console.log(`http fuzz failures:\n${result.failures.join("\n\n")}`);
    expect(result.failures).toEqual([]);
    console.log(`http fuzz: ${JSON.stringify({ ...result, failures: result.failures.length, rssStartMB: Math.round(result.rssStart / 2 ** 20), rssPeakMB: Math.round(result.rssPeak / 2 ** 20) })}`);
    expect(result.cases).toBe(runs);
    expect(result.rssPeak - result.rssStart).toBeLessThan(RSS_GROWTH_LIMIT);
    const health = await fetch(`${target.server.url}/api/openapi.json`);
    expect(health.status).toBe(200);
    expect(rssBytes(target.server.pid)).toBeGreaterThan(0);
  }, Math.max(120_000, runs * 60));
});
