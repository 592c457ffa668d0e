/**
 * The operator's settings as a form, from their one declaration (lib/config/settings-catalog.ts):
 * a control per setting, its hint, and where its value comes from. Locked settings (set in
 * the environment, or read at start-up) are shown disabled with their source. Server-rendered,
 * a plain form post: no client JavaScript.
 */
import type { SettingSection } from "@/lib/config/settings-catalog";
import { SECTIONS } from "@/lib/config/settings-catalog";
import type { SettingState } from "@/lib/settings/change";
import { fieldValue, sourceText } from "@/lib/web/admin/settings-fields";
import { card, input, label, muted, primaryButton } from "@/components/dashboard/ui";

function Control({ state }: { state: SettingState }) {
  const { declaration, locked } = state;
  const { name, input: kind } = declaration;
  const common = { id: name, name, disabled: locked, "aria-describedby": `${name}-help` };
  const value = locked && !declaration.secret ? (state.value ?? declaration.defaultText) : fieldValue(state);
  switch (kind.kind) {
    case "select":
      return (
        <select {...common} defaultValue={value} className={input}>
          {kind.options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    case "color":
      return (
        <input {...common} type="color" defaultValue={value} className="h-10 w-20 rounded-md border border-zinc-300 dark:border-zinc-700" />
      );
    case "secret":
      return (
        <div className="space-y-1">
          <input
            {...common}
            type="password"
            autoComplete="off"
            placeholder={state.isSet ? "Set: leave empty to keep it" : "Not set"}
            className={input}
          />
          {state.isSet && !locked && (
            <label className="flex items-center gap-2 text-sm">
              <input type="checkbox" name={`${name}__clear`} /> Remove the saved value
            </label>
          )}
        </div>
      );
    case "number":
      return (
        <input {...common} type="number" min={kind.min} defaultValue={value} placeholder={declaration.defaultText} className={input} />
      );
    default:
      return <input {...common} type="text" defaultValue={value} placeholder={declaration.defaultText} className={input} />;
  }
}

export function SettingField({ state }: { state: SettingState }) {
  const { declaration } = state;
  return (
    <div className="space-y-1" data-setting={declaration.name} data-source={state.source} data-locked={state.locked ? "true" : "false"}>
      <div className="flex items-center gap-2">
        <label htmlFor={declaration.name} className={label}>
          {declaration.label}
        </label>
        {state.locked && <span className="rounded bg-zinc-200 px-1.5 py-0.5 text-xs dark:bg-zinc-700">locked</span>}
      </div>
      <Control state={state} />
      <p id={`${declaration.name}-help`} className="text-xs text-zinc-600 dark:text-zinc-400">
        {declaration.help} <span className="font-mono">{declaration.name}</span>. {sourceText(state)}
      </p>
    </div>
  );
}

/** Sections in declaration order, each a fieldset; `only` limits the form to some sections or names. */
export function SettingsForm({
  states,
  action,
  submitLabel = "Save settings",
  only,
}: {
  states: readonly SettingState[];
  action: (form: FormData) => Promise<void>;
  submitLabel?: string;
  only?: readonly string[];
}) {
  const shown = only ? states.filter((s) => only.includes(s.declaration.name)) : states;
  const bySection = (id: SettingSection) => shown.filter((s) => s.declaration.section === id);
  return (
    <form action={action} className="space-y-6" aria-label="Settings">
      {SECTIONS.filter((section) => bySection(section.id).length).map((section) => (
        <fieldset key={section.id} className={`${card} space-y-4`} id={`section-${section.id}`}>
          <legend className="px-1 text-lg font-semibold">{section.title}</legend>
          <p className={muted}>{section.intro}</p>
          {bySection(section.id).map((state) => (
            <SettingField key={state.declaration.name} state={state} />
          ))}
        </fieldset>
      ))}
      <button type="submit" className={primaryButton}>
        {submitLabel}
      </button>
    </form>
  );
}
