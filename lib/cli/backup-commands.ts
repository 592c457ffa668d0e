/** `backup` (docs/admin-cli.md): never migrates, since a backup taken before an upgrade must hold the database as it was. */
import { z } from "zod";
import { createBackup } from "@/lib/backup/create";
import { restoreBackup } from "@/lib/backup/restore";
import { verifyBackup } from "@/lib/backup/verify";
import { env } from "@/lib/config/env";
import { dataDir, databaseConfig } from "@/lib/db/config";
import { DomainError } from "@/lib/errors";
import { type Command, command } from "./command";

const folder = z
  .string({ error: (issue) => (issue.input === undefined ? "is required" : "needs a value (a folder)") })
  .trim()
  .min(1, "needs a value (a folder)");

export function backupCommands(): Command[] {
  const offline = (command: Command): Command => ({ ...command, migrates: false });
  return [
    offline(
      command("backup create", "--out DIR", { out: folder }, async (flags) => ({
        ...(await createBackup(flags.out, { dataDir: dataDir(), database: databaseConfig(), storage: env().STORAGE })),
      })),
    ),
    offline(
      command("backup verify", "--from DIR", { from: folder }, async (flags) => {
        const { from, ok, checked, bytes, problems } = await verifyBackup(flags.from);
        if (!ok) {
          // An error like any other (exit 1), with every problem listed for scripts.
          const named = problems
            .slice(0, 3)
            .map((p) => `${p.path} (${p.problem})`)
            .join(", ");
          const more = problems.length > 3 ? ` and ${problems.length - 3} more` : "";
          throw new DomainError("invalid_request", `The backup fails verification: ${named}${more}.`, undefined, {
            from,
            checked,
            problems,
          });
        }
        return { from, ok, checked, bytes, problems };
      }),
    ),
    offline(
      command("backup restore", "--from DIR", { from: folder }, async (flags) => ({
        ...(await restoreBackup(flags.from, { dataDir: dataDir(), database: databaseConfig() })),
      })),
    ),
  ];
}
