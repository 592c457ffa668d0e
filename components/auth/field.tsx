/** One labelled field of the account forms. */
import type { ReactNode } from "react";
import { labelClass } from "./styles";

/** The label above the control; `children` is the control (whose id is `id`) and any help under it. */
export function Field({ id, label, children }: { id: string; label: ReactNode; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      {children}
    </div>
  );
}
