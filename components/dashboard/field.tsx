/** One labelled control of a dashboard form. */
import type { ReactNode } from "react";
import { label as labelClass, muted } from "./ui";

/**
 * The label above the control (`children`, whose id is `id`) and an optional hint below it.
 * The caller makes the id (useId) because the control needs it too.
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
