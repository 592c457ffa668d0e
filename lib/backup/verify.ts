/** `backup verify` (docs/operations.md, "Backup"). */
import { stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { listFiles } from "./folders";
import { hashFile, MANIFEST_NAME, readManifest, type Manifest } from "./manifest";

export type BackupProblemKind = "missing" | "size_mismatch" | "sha256_mismatch" | "unexpected";

export interface BackupProblem {
  path: string;
  problem: BackupProblemKind;
}

export interface VerifyResult {
  from: string;
  ok: boolean;
  checked: number;
  bytes: number;
  problems: BackupProblem[];
  manifest: Manifest;
}

async function check(dir: string, entry: Manifest["entries"][number]): Promise<BackupProblemKind | null> {
  const path = join(dir, entry.path);
  try {
    // Size first: a cheap answer for a truncated file, and no hashing of a huge stray one.
    if ((await stat(path)).size !== entry.size) return "size_mismatch";
    return (await hashFile(path)).sha256 === entry.sha256 ? null : "sha256_mismatch";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return "missing";
    throw error;
  }
}

export async function verifyBackup(fromDir: string): Promise<VerifyResult> {
  const from = resolve(fromDir);
  const manifest = await readManifest(from);
  const problems: BackupProblem[] = [];
  for (const entry of manifest.entries) {
    const problem = await check(from, entry);
    if (problem) problems.push({ path: entry.path, problem });
  }
  const listed = new Set(manifest.entries.map((e) => e.path));
  for (const path of await listFiles(from)) {
    if (path !== MANIFEST_NAME && !listed.has(path)) problems.push({ path, problem: "unexpected" });
  }
  return {
    from,
    ok: problems.length === 0,
    checked: manifest.entries.length,
    bytes: manifest.entries.reduce((sum, e) => sum + e.size, 0),
    problems,
    manifest,
  };
}
