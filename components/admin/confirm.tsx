/**
 * A destructive form behind a second click, without client JavaScript: the first button
 * (a <summary>) opens the confirmation, the second submits.
 */
import type { ReactNode } from "react";
import { dangerButton } from "@/components/dashboard/ui";

export function Confirm({
  label,
  confirm,
  action,
  children,
}: {
  label: string;
  confirm: string;
  action: (form: FormData) => Promise<void>;
  children: ReactNode;
}) {
  return (
    <details className="group relative">
      <summary className={`${dangerButton} cursor-pointer list-none`}>{label}</summary>
      <form
        action={action}
        className="mt-2 flex items-center gap-2 sm:absolute sm:right-0 sm:z-10 sm:whitespace-nowrap sm:rounded-md sm:border sm:border-zinc-200 sm:bg-white sm:p-2 sm:shadow dark:sm:border-zinc-700 dark:sm:bg-zinc-900"
      >
        {children}
        <button type="submit" className={dangerButton}>
          {confirm}
        </button>
      </form>
    </details>
  );
}
