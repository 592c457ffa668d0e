/** `backup restore` into an empty DATA_DIR from a verified backup only (docs/operations.md, "Restore"). */
import { constants } from "node:fs";
import { access, copyFile, mkdir } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { DatabaseConfig } from "@/lib/db/config";
import { DomainError } from "@/lib/errors";
import { POSTGRES_MESSAGE } from "./create";
import { requireEmpty } from "./folders";
import { DATABASE_ENTRY } from "./manifest";
import { verifyBackup } from "./verify";

export interface RestoreTarget {
  dataDir: string;
  database: DatabaseConfig;
}

export interface RestoreSummary {
  from: string;
  data_dir: string;
  restored: number;
  bytes: number;
  database: { provider: DatabaseConfig["provider"]; restored: boolean; message?: string };
}

export async function restoreBackup(fromDir: string, target: RestoreTarget): Promise<RestoreSummary> {
  const dataDir = resolve(target.dataDir);
  await requireEmpty(dataDir, "DATA_DIR");
  const verified = await verifyBackup(fromDir);
  if (!verified.ok) {
    const named = verified.problems
      .slice(0, 5)
      .map((p) => `${p.path} (${p.problem})`)
      .join(", ");
    throw new DomainError(
      "invalid_request",
      `The backup fails verification, nothing restored: ${named}${verified.problems.length > 5 ? ", ..." : ""}. Run backup verify for the full list.`,
    );
  }
  const { manifest } = verified;
  const hasDatabase = manifest.database.included;
  if (hasDatabase && target.database.provider !== "sqlite") {
    throw new DomainError(
      "invalid_request",
      "The backup holds a SQLite database but DATABASE_URL names PostgreSQL; unset DATABASE_URL to restore it.",
    );
  }
  // DATABASE_URL=file:... may put the database outside DATA_DIR: it must not exist either.
  if (
    hasDatabase &&
    (await access(target.database.url).then(
      () => true,
      () => false,
    ))
  ) {
    throw new DomainError("invalid_request", `A database already exists at ${target.database.url}.`);
  }

  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  let bytes = 0;
  for (const entry of manifest.entries) {
    const to = entry.path === DATABASE_ENTRY ? target.database.url : join(dataDir, entry.path);
    await mkdir(dirname(to), { recursive: true });
    // Never over an existing file: a second restore running at once fails instead of mixing.
    await copyFile(join(verified.from, entry.path), to, constants.COPYFILE_EXCL);
    bytes += entry.size;
  }

  const database: RestoreSummary["database"] = hasDatabase
    ? { provider: "sqlite", restored: true }
    : {
        provider: manifest.database.provider,
        restored: false,
        message:
          manifest.database.provider === "postgres"
            ? `${POSTGRES_MESSAGE} Restore that dump with pg_restore.`
            : "The backup holds no database.",
      };
  return { from: verified.from, data_dir: dataDir, restored: manifest.entries.length, bytes, database };
}
