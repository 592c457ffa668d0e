/** One labelled control of a form: the dashboard's, the console's and the account pages' look the same. */
import type { ReactNode } from "react";
import { label as labelClass, muted } from "./dashboard/ui";

/**
 * Ids of one form's fields, `${form}-${name}`. The dashboard's gallery and settings hydrate as
 * roots of their own on a full load (docs/dashboard-scripts.md, "Ids"), where useId would count
 * other ids than Next's server render wrote: server-rendered fields take these instead, with a
 * `form` name unique within the page.
 */
export function fieldIds<const K extends string>(form: string, names: readonly K[]): Record<K, string> {
  return Object.fromEntries(names.map((name) => [name, `${form}-${name}`])) as Record<K, string>;
}

/**
 * The label above the control (`children`, whose id is `id`), then an optional muted hint.
 * Help with an id of its own (for aria-describedby) goes in `children` instead. The caller
 * makes the id (fieldIds, or useId in parts only the browser renders) because the control needs it too.
 */
export function Field({ id, label, hint, children }: { id: string; label: ReactNode; hint?: ReactNode; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      {children}
      {hint && <p className={muted}>{hint}</p>}
    </div>
  );
}
