/**
 * Operator settings kept in the database (docs/configuration.md, "Settings in the console").
 * The server and worker re-read them when the database's change number moves (checked twice a
 * second); the admin CLI once before its command.
 */
import { markChanged } from "@/lib/db/change-signal";
import { changeVersion, db } from "@/lib/db/client";
import { isDown } from "@/lib/faults/outages";
import { applyStoredValues, settingsSource } from "@/lib/config/stored-settings";
import { RUNTIME_SETTING_NAMES, settingDeclaration } from "@/lib/config/settings-catalog";
import { moderatorFromEnv, setModerator } from "@/lib/moderation/moderator";

export type Log = (message: string) => void;

const RUNTIME_NAMES: ReadonlySet<string> = new Set(RUNTIME_SETTING_NAMES);

/** The stored rows that are still settings and still valid (a value of an older version that no longer parses is left out, once logged). */
async function readRows(log: Log): Promise<Record<string, string>> {
  // Raw: a model query would be compiled by Prisma's query compiler first, which the admin
  // CLI pays on each call (docs/admin-cli.md, "Speed"); the table holds a few rows.
  const rows = await db().$queryRaw<{ name: string; value: string }[]>`SELECT "name", "value" FROM "Setting"`;
  const values: Record<string, string> = {};
  for (const row of rows) {
    if (!RUNTIME_NAMES.has(row.name)) continue;
    try {
      values[row.name] = settingDeclaration(row.name)?.check(row.value) ?? row.value;
    } catch (error) {
      log(`stored setting ${row.name} ignored: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return values;
}

/** What depends on the settings beyond env(): the moderation lists, and every read cache (post URLs carry SHARE_URL). */
function afterChange(log: Log): void {
  try {
    setModerator(moderatorFromEnv(settingsSource()));
  } catch (error) {
    log(`moderation lists not reloaded: ${error instanceof Error ? error.message : String(error)}`);
  }
  markChanged();
}

export async function refreshStoredSettings(log: Log = (m) => console.error(`[mediahost] ${m}`)): Promise<boolean> {
  const changed = applyStoredValues(await readRows(log));
  if (changed) afterChange(log);
  return changed;
}

export interface SettingsWatcher {
  stop(): void;
}

/** Each tick costs nothing unless the change number moved; a database away keeps the last values. */
export function watchStoredSettings(options: { intervalMs?: number; log?: Log } = {}): SettingsWatcher {
  const log = options.log ?? ((m: string) => console.error(`[mediahost] ${m}`));
  let seen = changeVersion();
  let failing = false;
  let busy = false;
  const timer = setInterval(() => {
    // While the database is known to be away, requests find out when it is back (lib/faults):
    // the watcher adds no query of its own to a frozen pool, nor a line to the outage's log.
    if (busy || isDown("database")) return;
    const now = changeVersion();
    if (now === seen) return;
    busy = true;
    refreshStoredSettings(log)
      .then(() => {
        seen = now;
        if (failing) log("stored settings readable again");
        failing = false;
      })
      .catch((error: unknown) => {
        if (!failing) log(`stored settings not read (keeping the last ones): ${error instanceof Error ? error.message : String(error)}`);
        failing = true;
      })
      .finally(() => {
        busy = false;
      });
  }, options.intervalMs ?? 500);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
