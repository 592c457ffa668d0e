"use client";

import { useId, useState, useTransition, type FormEvent } from "react";
import { reportPostAction } from "@/lib/web/social-actions";
import { buttonClass, primaryButtonClass } from "./styles";

/** "Report" on a share page: an optional reason, then the moderators' queue (docs/reports.md). */
export function ReportButton({ code }: { code: string }) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const id = useId();

  if (done)
    return (
      <p role="status" className="text-sm text-zinc-600 dark:text-zinc-400">
        Reported. Thank you: a moderator will look at it.
      </p>
    );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const reason = String(new FormData(event.currentTarget).get("reason") ?? "");
    startTransition(async () => {
      const result = await reportPostAction(code, reason);
      if (result.ok) setDone(true);
      else setError(result.error);
    });
  }

  if (!open) {
    return (
      <button type="button" onClick={() => setOpen(true)} className="text-sm text-zinc-500 hover:underline dark:text-zinc-400">
        Report
      </button>
    );
  }
  return (
    <form onSubmit={submit} className="w-full space-y-2">
      <label htmlFor={id} className="block text-sm font-medium">
        What is wrong with this post? (optional)
      </label>
      <textarea
        id={id}
        name="reason"
        maxLength={200}
        rows={2}
        className="w-full rounded-md border border-zinc-300 bg-white px-2 py-1 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      />
      {error && (
        <p role="alert" className="text-sm text-red-600 dark:text-red-400">
          {error}
        </p>
      )}
      <div className="flex gap-2">
        <button type="submit" disabled={pending} className={primaryButtonClass}>
          Send report
        </button>
        <button type="button" onClick={() => setOpen(false)} className={buttonClass}>
          Cancel
        </button>
      </div>
    </form>
  );
}
