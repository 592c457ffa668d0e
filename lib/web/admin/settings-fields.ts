/** How a setting appears in the console's form (components/admin/settings-form.tsx and its action). */
import type { SettingState } from "@/lib/settings/change";

/** What a field shows, so an untouched field compares equal and is not saved; secrets show nothing, ever. */
export function fieldValue(state: SettingState): string {
  const { input, defaultText } = state.declaration;
  if (input.kind === "secret") return "";
  if (input.kind === "select" || input.kind === "color") return state.value ?? defaultText;
  return state.value ?? "";
}

export function sourceText(state: SettingState): string {
  if (state.source === "environment") return `Set in the environment (${state.declaration.name}): change it there and restart.`;
  if (!state.declaration.runtime) return "Read at start-up: change it in the environment and restart.";
  if (state.source === "console")
    return `Set here${state.updatedBy ? ` by ${state.updatedBy}` : ""}${state.updatedAt ? ` on ${state.updatedAt.toISOString().slice(0, 16).replace("T", " ")} UTC` : ""}.`;
  return `Default: ${state.declaration.defaultText}.`;
}
