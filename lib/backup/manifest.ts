/** A backup's manifest (docs/operations.md, "Backup"): written last, so a folder without one is unfinished. */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { DomainError } from "@/lib/errors";

export const MANIFEST_NAME = "manifest.json";
export const MANIFEST_FORMAT = "mediahost-backup";
export const MANIFEST_VERSION = 1;
export const DATABASE_ENTRY = "mediahost.db";

/**
 * A path inside the backup: relative, `/`-separated, no empty, `.` or `..` segment. A
 * manifest is read from a folder that may have been tampered with; restore writes these
 * paths under DATA_DIR, so nothing may point outside it.
 */
const entryPath = z
  .string()
  .min(1)
  .max(1024)
  .refine((p) => !p.startsWith("/") && !p.includes("\\") && !p.includes("\0"), "must be a relative path")
  .refine((p) => p.split("/").every((s) => s !== "" && s !== "." && s !== ".."), "must not leave the backup folder");

const entrySchema = z.strictObject({
  path: entryPath,
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const manifestSchema = z.strictObject({
  format: z.literal(MANIFEST_FORMAT),
  version: z.literal(MANIFEST_VERSION),
  created_at: z.string(),
  database: z.strictObject({ provider: z.enum(["sqlite", "postgres"]), included: z.boolean() }),
  storage: z.strictObject({ kind: z.enum(["disk", "s3", "blob"]), included: z.boolean() }),
  entries: z.array(entrySchema),
});

export type ManifestEntry = z.infer<typeof entrySchema>;
export type Manifest = z.infer<typeof manifestSchema>;

export async function hashFile(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: hash.digest("hex") };
}

/** Writes the manifest through a temporary name: it appears whole or not at all. */
export async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const temporary = join(dir, `.${MANIFEST_NAME}.tmp`);
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, join(dir, MANIFEST_NAME));
}

export async function readManifest(dir: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_NAME), "utf8");
  } catch {
    throw new DomainError("invalid_request", `${join(dir, MANIFEST_NAME)} is missing: not a backup folder, or an unfinished backup.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new DomainError("invalid_request", `${MANIFEST_NAME} is not valid JSON.`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DomainError(
      "invalid_request",
      `${MANIFEST_NAME} is not a Mediahost backup manifest (${issue.path.join(".") || "root"}: ${issue.message}).`,
    );
  }
  return parsed.data;
}
