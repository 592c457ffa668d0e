/** One labelled control of a form: the dashboard's, the console's and the account pages' look the same. */
import type { ReactNode } from "react";
import { label as labelClass, muted } from "./dashboard/ui";

/**
 * The label above the control (`children`, whose id is `id`), then an optional muted hint.
 * Help with an id of its own (for aria-describedby) goes in `children` instead. The caller
 * makes the id (useId) because the control needs it too.
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
