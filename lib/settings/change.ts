/** The operator's settings as the console and `admin settings` see and change them (docs/configuration.md). */
import { type Actor, recordAudit } from "@/lib/audit/log";
import { env } from "@/lib/config/env";
import { environmentValue, setInEnvironment } from "@/lib/config/stored-settings";
import { SETTINGS, type SettingDeclaration, settingDeclaration } from "@/lib/config/settings-catalog";
import { db } from "@/lib/db/client";
import { DomainError } from "@/lib/errors";
import { refreshStoredSettings } from "./stored";

export type SettingSource = "environment" | "console" | "default";

export interface SettingState {
  declaration: SettingDeclaration;
  /** The value in force, as text; null for a secret (never shown) and for an unset setting with no value. */
  value: string | null;
  isSet: boolean;
  source: SettingSource;
  /** Set in the environment, or read at start-up only: the console cannot change it. */
  locked: boolean;
  updatedAt: Date | null;
  updatedBy: string | null;
}

const REDACTED = "(secret)";

/** Start-up settings have no stored row: their value in force is the environment's (or the derived default). */
function startupValue(name: string): string | undefined {
  const current = env();
  if (name === "PUBLIC_URL") return current.PUBLIC_URL;
  if (name === "PORT") return String(current.PORT);
  if (name === "BACKGROUND_WORK") return current.BACKGROUND_WORK ? "on" : "off";
  return environmentValue(name);
}

export async function listSettings(): Promise<SettingState[]> {
  const rows = new Map((await db().setting.findMany()).map((row) => [row.name, row]));
  return SETTINGS.map((declaration): SettingState => {
    const { name } = declaration;
    const row = declaration.runtime ? rows.get(name) : undefined;
    const fromEnv = setInEnvironment(name);
    const raw = fromEnv ? environmentValue(name) : declaration.runtime ? row?.value : startupValue(name);
    const source: SettingSource = fromEnv ? "environment" : row ? "console" : "default";
    return {
      declaration,
      value: declaration.secret ? null : (raw ?? null),
      isSet: raw !== undefined && raw !== "",
      source,
      locked: fromEnv || !declaration.runtime,
      updatedAt: row?.updatedAt ?? null,
      updatedBy: row?.updatedBy ?? null,
    };
  });
}

export async function getSetting(name: string): Promise<SettingState> {
  const declaration = known(name);
  const state = (await listSettings()).find((s) => s.declaration === declaration);
  if (!state) throw new DomainError("not_found", `No setting named ${name}.`);
  return state;
}

function known(name: string): SettingDeclaration {
  const declaration = settingDeclaration(name);
  if (!declaration)
    throw new DomainError("not_found", `No setting named ${name.trim() || "(empty)"}; 'admin settings list' names them all.`);
  return declaration;
}

export interface SettingChange {
  name: string;
  /** The stored value now (null: back to the default); a secret's is never returned. */
  value: string | null;
  changed: boolean;
}

/** "" or null: back to the default. Audited, a secret's values as "(secret)". */
export async function changeSetting(actor: Actor, name: string, value: string | null): Promise<SettingChange> {
  const declaration = known(name);
  if (!declaration.runtime)
    throw new DomainError("forbidden", `${declaration.name} is read at start-up: set it in the service's environment and restart.`);
  if (setInEnvironment(declaration.name))
    throw new DomainError("forbidden", `${declaration.name} is set in the service's environment, which wins: change it there and restart.`);
  let stored: string | null = null;
  if (value !== null && value.trim() !== "") {
    try {
      stored = declaration.check(value);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new DomainError(
        "invalid_request",
        message.includes(declaration.name) ? message : `Invalid setting ${declaration.name}: ${message}`,
      );
    }
  }
  const before = await db().setting.findUnique({ where: { name: declaration.name } });
  const old = before?.value ?? null;
  if (old === stored) return { name: declaration.name, value: declaration.secret ? null : stored, changed: false };
  if (stored === null) await db().setting.deleteMany({ where: { name: declaration.name } });
  else
    await db().setting.upsert({
      where: { name: declaration.name },
      create: { name: declaration.name, value: stored, updatedBy: actor.name },
      update: { value: stored, updatedBy: actor.name },
    });
  const shown = (v: string | null) => (v === null ? null : declaration.secret ? REDACTED : v);
  await recordAudit(
    actor,
    "setting.change",
    { type: "setting", id: declaration.name, label: declaration.label },
    {
      old: shown(old),
      new: shown(stored),
    },
  );
  // This process at once; the others within a second (lib/settings/stored.ts).
  await refreshStoredSettings();
  return { name: declaration.name, value: declaration.secret ? null : stored, changed: true };
}
