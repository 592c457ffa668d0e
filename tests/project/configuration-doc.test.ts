/**
 * docs/configuration.md lists every setting (issue 31 §6, §8): each variable env.ts declares
 * and each one a subsystem parses (lib/server/settings.ts) has a row, so the table cannot
 * drift from the code; README keeps a short list and links to it.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ENV_VARIABLES } from "@/lib/config/env";
import { PLAN_SETTING_NAMES } from "@/lib/plans";
import { SUBSYSTEM_SETTINGS } from "@/lib/server/settings";

const doc = readFileSync("docs/configuration.md", "utf8");
/** The variables named in the first cell of each table row. */
const documented = new Set(
  doc
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .flatMap((line) => [...(line.split("|")[1] ?? "").matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])),
);

describe("docs/configuration.md", () => {
  it("has a row for every variable of env.ts", () => {
    expect(ENV_VARIABLES.filter((name) => !documented.has(name))).toEqual([]);
  });

  it("has a row for every variable a subsystem parses", () => {
    const names = SUBSYSTEM_SETTINGS.flatMap((subsystem) => subsystem.variables).filter((name) => !PLAN_SETTING_NAMES.includes(name));
    expect(names.filter((name) => !documented.has(name))).toEqual([]);
  });

  it("names every plan and field of the PLAN_<PLAN>_<FIELD> overrides", () => {
    const row = doc.split("\n").find((line) => line.startsWith("| `PLAN_<PLAN>_<FIELD>`")) ?? "";
    const [plans, fields] = [new Set<string>(), new Set<string>()];
    for (const name of PLAN_SETTING_NAMES) {
      const [, plan, field] = /^PLAN_([A-Z]+)_(.+)$/.exec(name) ?? [];
      plans.add(plan);
      fields.add(field);
    }
    expect(plans.size * fields.size).toBe(PLAN_SETTING_NAMES.length);
    for (const word of [...plans, ...fields]) expect(row).toContain(`\`${word}\``);
  });

  it("names only variables the code knows", () => {
    const known = new Set([...ENV_VARIABLES, ...SUBSYSTEM_SETTINGS.flatMap((s) => s.variables), "MALLOC_ARENA_MAX", "NEXTAUTH_URL"]);
    expect([...documented].filter((name) => !known.has(name) && !name.startsWith("PLAN_"))).toEqual([]);
  });

  it("is what README's settings section links to", () => {
    const readme = readFileSync("README.md", "utf8");
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("\n## ", readme.indexOf("## Configuration") + 1));
    expect(section).toContain("(docs/configuration.md)");
  });
});
