/** The compact privacy picker of the gallery's toolbars: new uploads' privacy, and the selection's new one. */
import type { Privacy } from "./api";
import { PRIVACY_LABEL } from "./privacies";

/**
 * A select with a screen-reader label. `choices` is the order of the options: each toolbar
 * lists its own default first.
 */
export function PrivacySelect({
  id,
  label,
  value,
  choices,
  onChange,
}: {
  id: string;
  label: string;
  value: Privacy;
  choices: readonly Privacy[];
  onChange: (privacy: Privacy) => void;
}) {
  return (
    <>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <select
        id={id}
        value={value}
        onChange={(e) => onChange(e.target.value as Privacy)}
        className="rounded-md border border-zinc-300 bg-white px-2 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      >
        {choices.map((privacy) => (
          <option key={privacy} value={privacy}>
            {PRIVACY_LABEL[privacy]}
          </option>
        ))}
      </select>
    </>
  );
}
