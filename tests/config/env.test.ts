/** lib/config/env.ts parses every variable the service reads (issue #21 §2: none read raw elsewhere). */
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/config/env";

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

  it("the service's code reads none of the README's variables from process.env itself", () => {
    const readme = readFileSync("README.md", "utf8");
    const documented = [...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)`/gm)].map((m) => m[1]);
    expect(documented).toEqual(expect.arrayContaining(["REDIS_URL", "TRUST_PROXY", "DATABASE_POOL_SIZE", "NEXTAUTH_SECRET"]));
    const files = execFileSync("git", ["ls-files", "lib", "app", "components", "proxy.ts"], { encoding: "utf8" })
      .split("\n")
      .filter((f) => /\.(ts|tsx)$/.test(f) && f !== "lib/config/env.ts" && !f.startsWith("lib/db/generated/"));
    const raw: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, "utf8");
      for (const name of documented) if (text.includes(`process.env.${name}`)) raw.push(`${file}: ${name}`);
    }
    expect(raw).toEqual([]);
  });
});
