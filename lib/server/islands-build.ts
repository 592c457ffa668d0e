/**
 * The dashboard's own bundle (docs/dashboard-scripts.md): one esbuild run over the islands'
 * entries (components/dashboard/islands/), written beside Next's files in
 * `.next/static/islands/` (content-hashed names, compressed and served immutable with the rest:
 * static-assets.ts) with a manifest of each entry's scripts for the server.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ISLAND_NAMES, type IslandName } from "@/components/dashboard/islands/names";

const OUT_DIR = join(".next", "static", "islands");
export const ISLANDS_MANIFEST = join(".next", "islands-manifest.json");
const ENTRY_DIR = join("components", "dashboard", "islands");
/** Next 16's browser floor (its browserslist default). */
const TARGET = ["chrome111", "edge111", "firefox111", "safari16.4"];

/** Each island's scripts, the entry last: every one goes in the page as a module script. */
export type IslandsManifest = Partial<Record<IslandName, string[]>>;

/** Next's client modules replaced by shims: the page is a full load, its links full navigations. */
const ALIASES = {
  "next/navigation": `./${ENTRY_DIR}/next/navigation.ts`,
  "next/link": `./${ENTRY_DIR}/next/link.tsx`,
  "next/dynamic": `./${ENTRY_DIR}/next/dynamic.tsx`,
};

export async function buildIslands(root: string): Promise<IslandsManifest> {
  const { build } = await import("esbuild");
  const outdir = join(root, OUT_DIR);
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(ISLAND_NAMES.map((name) => [name, `./${ENTRY_DIR}/${name}.tsx`])),
    outdir,
    entryNames: "[name]-[hash]",
    chunkNames: "chunk-[hash]",
    bundle: true,
    // Shared code in chunks of its own; the post editor, tus-js-client and the passkey library load on use.
    splitting: true,
    format: "esm",
    platform: "browser",
    target: TARGET,
    minify: true,
    legalComments: "none",
    jsx: "automatic",
    alias: ALIASES,
    define: { "process.env.NODE_ENV": '"production"' },
    tsconfig: join(root, "tsconfig.json"),
    metafile: true,
    logLevel: "silent",
  });
  const manifest = manifestOf(root, result.metafile);
  writeFileSync(join(root, ISLANDS_MANIFEST), `${JSON.stringify(manifest)}\n`);
  return manifest;
}

type Metafile = { outputs: Record<string, { entryPoint?: string; imports: { path: string; kind: string }[] }> };

/** Each entry's output and the chunks it imports statically, dependencies first, as `/_next/static/islands/…` URLs. */
export function manifestOf(root: string, metafile: Metafile): IslandsManifest {
  const url = (output: string) => `/_next/${relative(join(root, ".next"), join(root, output)).split("\\").join("/")}`;
  const manifest: IslandsManifest = {};
  for (const name of ISLAND_NAMES) {
    const entry = Object.keys(metafile.outputs).find((output) => metafile.outputs[output].entryPoint?.endsWith(`islands/${name}.tsx`));
    if (!entry) continue;
    const ordered: string[] = [];
    const visit = (output: string) => {
      if (ordered.includes(output) || !metafile.outputs[output]) return;
      for (const imported of metafile.outputs[output].imports) if (imported.kind === "import-statement") visit(imported.path);
      ordered.push(output);
    };
    visit(entry);
    manifest[name] = ordered.map(url);
  }
  return manifest;
}

/** The build's manifest, or null when there is none or a script it names is not there (a build without the islands: `next build` alone). */
export function readIslandsManifest(root: string): IslandsManifest | null {
  try {
    const manifest = JSON.parse(readFileSync(join(root, ISLANDS_MANIFEST), "utf8")) as IslandsManifest;
    const files = Object.values(manifest).flat();
    return files.every((url) => existsSync(join(root, ".next", url.replace(/^\/_next\//, "")))) ? manifest : null;
  } catch {
    return null;
  }
}
