/**
 * Rules written once (issue 31 §7): the privacy schema and its message, the dashboard's
 * privacy lists, and the link-domain host rule each have one home; a second copy is how they
 * drifted before.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === "generated" ? [] : sources(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}
const files = [...sources("lib"), ...sources("components"), ...sources("app")];
const where = (pattern: RegExp): string[] =>
  files.filter((file) => pattern.test(readFileSync(join(root, file), "utf8"))).map((file) => relative(root, join(root, file)));

describe("one home", () => {
  it("writes the request privacy enum and its message once (lib/http/parse.ts)", () => {
    expect(where(/z\.enum\(PRIVACIES,/)).toEqual(["lib/http/parse.ts"]);
    expect(where(/must be public, unlisted or private/)).toEqual([]);
  });

  it("lists the privacies in the UI from PRIVACIES, never spelled out", () => {
    const spelled = /value="(public|unlisted|private)"|\[\s*"(public|unlisted|private)",\s*"(public|unlisted|private)"/;
    expect(where(spelled).filter((file) => file.startsWith("components/") || file.startsWith("app/"))).toEqual([]);
  });

  it("books an upload's quota in lib/uploads/quota.ts alone (issue 43 §3): no other file of the app reaches lib/usage/reserve", () => {
    expect(where(/from "[^"]*usage\/reserve"/)).toEqual(["lib/uploads/quota.ts"]);
  });

  it("gives the share page one loader (issue 43 §3): the page imports lib/web/share-page.ts and nothing else of lib/", () => {
    const page = readFileSync(join(root, "app/p/[code]/page.tsx"), "utf8");
    expect([...page.matchAll(/from "@\/lib\/([^"]+)"/g)].map((m) => m[1])).toEqual(["web/share-page"]);
  });

  it("tells a code from a password in one place (components/dashboard/account-form.tsx, proofBody)", () => {
    expect(where(/\^\\d\{6\}\$/).filter((file) => file.startsWith("components/"))).toEqual(["components/dashboard/account-form.tsx"]);
  });

  it("writes the list panels' request scaffolding once (components/dashboard/list-panel.tsx)", () => {
    expect(where(/e instanceof ApiError \|\| e instanceof Error/)).toEqual(["components/dashboard/list-panel.tsx"]);
    const panels = ["links-panel", "webhooks-panel", "folders-panel"].map((name) => `components/dashboard/${name}.tsx`);
    const own = panels.filter(
      (file) => !/\buseRun\(/.test(readFileSync(join(root, file), "utf8")) || /<form onSubmit/.test(readFileSync(join(root, file), "utf8")),
    );
    expect(own).toEqual([]);
  });

  it("keeps the link-domain host rule in lib/users/link-domain.ts alone", () => {
    expect(where(/xn--\[a-z0-9-\]/)).toEqual(["lib/users/link-domain.ts"]);
  });
});
