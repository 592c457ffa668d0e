/** lib/config/env.ts parses every variable the service reads (issue #21 §2: none read raw elsewhere). */
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES, parseEnv, setting } from "@/lib/config/env";
import { databaseConfig, dataDir } from "@/lib/db/config";
import { parseMediaConfig } from "@/lib/media/config";

describe("parseEnv", () => {
  it("DATABASE_POOL_SIZE: an integer of at least 1, unset by default, refused otherwise", () => {
    expect(parseEnv({ DATABASE_POOL_SIZE: "25" }).DATABASE_POOL_SIZE).toBe(25);
    expect(parseEnv({ DATABASE_POOL_SIZE: "" }).DATABASE_POOL_SIZE).toBeUndefined();
    expect(() => parseEnv({ DATABASE_POOL_SIZE: "many" })).toThrow(/DATABASE_POOL_SIZE/);
  });

  it("REDIS_URL, TRUST_PROXY and NEXTAUTH_SECRET with the `||` rule: empty or blank means unset", () => {
    expect(parseEnv({ REDIS_URL: " redis://r:6379 " }).REDIS_URL).toBe("redis://r:6379");
    expect(parseEnv({ REDIS_URL: "" }).REDIS_URL).toBeUndefined();
    expect(parseEnv({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(true);
    expect(parseEnv({ TRUST_PROXY: "" }).TRUST_PROXY).toBe(false);
    expect(parseEnv({ NEXTAUTH_SECRET: "  " }).NEXTAUTH_SECRET).toBeUndefined();
  });

  it("the job settings: empty means the default, a value that is not a usable number is refused naming it", () => {
    const jobs = (source: Record<string, string>) => {
      const e = parseEnv(source);
      return [e.JOB_QUEUE_NAME, e.JOB_POLL_MS, e.JOB_RETRY_BASE_MS];
    };
    expect(jobs({ JOB_QUEUE_NAME: "test-1", JOB_POLL_MS: "200", JOB_RETRY_BASE_MS: "0" })).toEqual(["test-1", 200, 0]);
    expect(jobs({ JOB_QUEUE_NAME: "", JOB_POLL_MS: "", JOB_RETRY_BASE_MS: "" })).toEqual([undefined, undefined, undefined]);
    expect(() => parseEnv({ JOB_POLL_MS: "0" })).toThrow(/JOB_POLL_MS/);
    expect(() => parseEnv({ JOB_POLL_MS: "soon" })).toThrow(/JOB_POLL_MS/);
    expect(() => parseEnv({ JOB_RETRY_BASE_MS: "-5" })).toThrow(/JOB_RETRY_BASE_MS/);
  });

  it("HEAP_GROWING_PERCENT: a whole number of at least 0, refused otherwise (the start stops)", () => {
    expect(parseEnv({ HEAP_GROWING_PERCENT: "0" }).HEAP_GROWING_PERCENT).toBe(0);
    expect(parseEnv({}).HEAP_GROWING_PERCENT).toBeUndefined();
    expect(() => parseEnv({ HEAP_GROWING_PERCENT: "half" })).toThrow(/HEAP_GROWING_PERCENT/);
  });

  it("publicUrlFromPort tells an unset PUBLIC_URL from one that was given", () => {
    expect(parseEnv({ PORT: "0" }).publicUrlFromPort).toBe(true);
    expect(parseEnv({ PORT: "0", PUBLIC_URL: "https://media.example" }).publicUrlFromPort).toBe(false);
  });

  it("the service's code and scripts read none of the service's variables from process.env itself", () => {
    const table = readFileSync("docs/configuration.md", "utf8");
    const documented = [...table.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((m) => m[1]);
    expect(documented).toEqual(expect.arrayContaining(["REDIS_URL", "TRUST_PROXY", "DATABASE_POOL_SIZE", "NEXTAUTH_SECRET"]));
    // NODE_ENV is Node's and Next's own switch (lib/server/server.ts sets it before Next
    // loads), read where it is needed rather than through the cached configuration.
    const names = new Set([...documented, ...ENV_VARIABLES].filter((name) => name !== "NODE_ENV"));
    const files = execFileSync("git", ["ls-files", "lib", "app", "components", "scripts", "proxy.ts"], { encoding: "utf8" })
      .split("\n")
      .filter((f) => /\.(ts|tsx|mjs)$/.test(f) && f !== "lib/config/env.ts" && !f.startsWith("lib/db/generated/"));
    const raw: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      // A read, not an assignment (lib/config/process-env.ts writes the few that libraries read).
      for (const [, name] of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)\b(?!\s*=[^=])/g))
        if (names.has(name)) raw.push(`${file}: ${name}`);
    }
    expect(raw).toEqual([]);
  });

  it("a service-wide variable has one rule: no module but env.ts declares a zod field for one", () => {
    const files = execFileSync("git", ["ls-files", "lib", "app", "components", "scripts"], { encoding: "utf8" })
      .split("\n")
      .filter((f) => /\.(ts|tsx|mjs)$/.test(f) && f !== "lib/config/env.ts" && !f.startsWith("lib/db/generated/"));
    const fields: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const [, name] of text.matchAll(/^\s*([A-Z][A-Z0-9_]+):\s*(?:z\.|optional|flag|lenient|\.\.\.)/gm))
        if (ENV_VARIABLES.includes(name)) fields.push(`${file}: ${name}`);
    }
    expect(fields).toEqual([]);
  });
});

describe("setting: one variable by env.ts's rule", () => {
  it("the data directory and the database URL follow the `||` rule (blank is unset) at every call", () => {
    expect(dataDir({ DATA_DIR: "  /srv/media  " })).toBe("/srv/media");
    expect(dataDir({ DATA_DIR: " " })).toBe(resolve("./data"));
    expect(databaseConfig({ DATABASE_URL: " postgres://db/x " })).toEqual({ provider: "postgres", url: "postgres://db/x" });
  });

  it("the media queue's bounds and the binaries come from env.ts's rules, with the variable named when refused", () => {
    const media = parseMediaConfig({ MEDIA_QUEUE_BYTES: "2GB", MEDIA_QUEUE_WAIT_SECONDS: "0", FFMPEG_PATH: " /opt/ffmpeg " });
    expect([media.queueBytes, media.queueWaitMs, media.ffmpegPath]).toEqual([2 * 1024 ** 3, 0, "/opt/ffmpeg"]);
    expect(setting("MEDIA_QUEUE_BYTES", { MEDIA_QUEUE_BYTES: "512 MB" })).toBe(parseEnv({ MEDIA_QUEUE_BYTES: "512 MB" }).MEDIA_QUEUE_BYTES);
    expect(() => parseMediaConfig({ MEDIA_QUEUE_BYTES: "lots" })).toThrow(/^Invalid setting MEDIA_QUEUE_BYTES: must be a byte count/);
    expect(() => setting("DATABASE_POOL_SIZE", { DATABASE_POOL_SIZE: "0" })).toThrow(/DATABASE_POOL_SIZE: must be an integer >= 1/);
  });
});
