/**
 * The admin CLI's `backup` commands (docs/admin-cli.md, docs/operations.md). They read
 * DATA_DIR and the database file directly and never migrate: a backup taken before an
 * upgrade must hold the database as it was.
 */
import { z } from "zod";
import { createBackup } from "../backup/create";
import { restoreBackup } from "../backup/restore";
import { verifyBackup } from "../backup/verify";
import { env } from "../config/env";
import { dataDir, databaseConfig } from "../db/config";
import type { Command, DefineCommand } from "./commands";
import { FailedCommand } from "./failed";

const folder = (flag: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? "is required" : `needs a value (a folder)`) })
    .trim()
    .min(1, `needs a value (a folder) for --${flag}`);

/** Registered in commands.ts's table, which passes its `command` helper (no import cycle). */
export function backupCommands(define: DefineCommand): Command[] {
  const offline = (command: Command): Command => ({ ...command, migrates: false });
  return [
    offline(
      define("backup create", "--out DIR", { out: folder("out") }, async (flags) => ({
        ...(await createBackup(flags.out, { dataDir: dataDir(), database: databaseConfig(), storage: env().STORAGE })),
      })),
    ),
    offline(
      define("backup verify", "--from DIR", { from: folder("from") }, async (flags) => {
        const { manifest: _manifest, ...result } = await verifyBackup(flags.from);
        if (!result.ok) throw new FailedCommand({ ...result });
        return { ...result };
      }),
    ),
    offline(
      define("backup restore", "--from DIR", { from: folder("from") }, async (flags) => ({
        ...(await restoreBackup(flags.from, { dataDir: dataDir(), database: databaseConfig() })),
      })),
    ),
  ];
}
