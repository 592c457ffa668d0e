"use server";
/** The console's settings and first-run forms: plain form posts; one refused field saves nothing. */
import { redirect } from "next/navigation";
import type { SettingDeclaration } from "@/lib/config/settings-catalog";
import { DomainError } from "@/lib/errors";
import { changeSetting, listSettings, type SettingState } from "@/lib/settings/change";
import { adminActor } from "./guard";
import { fieldValue } from "./settings-fields";

interface Wanted {
  declaration: SettingDeclaration;
  value: string | null;
}

function changedFields(form: FormData, states: readonly SettingState[]): Wanted[] {
  const wanted: Wanted[] = [];
  for (const state of states) {
    const { declaration } = state;
    if (state.locked || !form.has(declaration.name)) continue;
    const submitted = String(form.get(declaration.name) ?? "").trim();
    if (declaration.input.kind === "secret") {
      // Write-only: an empty field keeps the secret; the "clear" box removes it.
      if (form.get(`${declaration.name}__clear`) === "on") wanted.push({ declaration, value: null });
      else if (submitted) wanted.push({ declaration, value: submitted });
      continue;
    }
    if (submitted !== fieldValue(state)) wanted.push({ declaration, value: submitted || null });
  }
  return wanted;
}

function problems(wanted: readonly Wanted[]): string[] {
  const found: string[] = [];
  for (const { declaration, value } of wanted) {
    if (value === null) continue;
    try {
      declaration.check(value);
    } catch (error) {
      found.push(error instanceof Error ? error.message : String(error));
    }
  }
  return found;
}

function back(path: string, key: "notice" | "error", message: string): never {
  redirect(`${path}?${new URLSearchParams({ [key]: message })}`);
}

async function saveForm(form: FormData, path: string): Promise<never> {
  const actor = await adminActor();
  const wanted = changedFields(form, await listSettings());
  if (!wanted.length) back(path, "notice", "Nothing changed.");
  const refused = problems(wanted);
  if (refused.length) back(path, "error", `Nothing saved. ${refused.join(" ")}`);
  const saved: string[] = [];
  try {
    for (const { declaration, value } of wanted) {
      await changeSetting(actor, declaration.name, value);
      saved.push(declaration.name);
    }
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    back(path, "error", saved.length ? `Saved ${saved.join(", ")}; then: ${error.message}` : error.message);
  }
  back(path, "notice", `Saved ${saved.join(", ")}. Every instance applies it within a few seconds.`);
}

export async function saveSettingsAction(form: FormData): Promise<void> {
  await saveForm(form, "/admin/settings");
}

/** One setting back to its default (the console's "Reset" button). */
export async function resetSettingAction(form: FormData): Promise<void> {
  const actor = await adminActor();
  const name = String(form.get("name") ?? "");
  try {
    await changeSetting(actor, name, null);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    back("/admin/settings", "error", error.message);
  }
  back("/admin/settings", "notice", `${name} is back to its default.`);
}

export async function saveWelcomeAction(form: FormData): Promise<void> {
  await saveForm(form, "/admin/welcome");
}
