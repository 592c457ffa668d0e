"use client";
/**
 * A one-time password-reset link for an account, for someone who forgot theirs (audited).
 * The link comes back as the form's state and is shown once, in the page body: never in the
 * URL, where browser history and logs would keep it (issue 39 §4). Without client JavaScript
 * the form still posts, and the page that answers shows the same state.
 */
import { useActionState } from "react";
import { CopyButton } from "@/components/dashboard/copy-button";
import { muted, secondaryButton } from "@/components/dashboard/ui";
import { resetLinkAction, type ResetLinkState } from "@/lib/web/admin/actions";

export function ResetLinkForm({ user }: { user: { id: string } }) {
  const [state, action, pending] = useActionState<ResetLinkState, FormData>(resetLinkAction, null);
  return (
    <form action={action} className="flex flex-wrap items-center gap-3 sm:col-span-2">
      <input type="hidden" name="user" value={user.id} />
      <span className={muted}>Forgotten password: a link that sets a new one and signs every device out.</span>
      <button type="submit" className={secondaryButton} disabled={pending}>
        Make a reset link
      </button>
      {state && "link" in state && (
        <div role="status" className="w-full space-y-1 text-sm">
          <span className="block">Reset link for {state.username} (works once, for 30 minutes; shown only now):</span>
          <code data-testid="reset-link" className="block break-all rounded bg-zinc-100 px-2 py-1 font-mono dark:bg-zinc-800">
            {state.link}
          </code>
          <CopyButton value={state.link} label="Copy link" />
        </div>
      )}
      {state && "error" in state && (
        <p role="alert" className="w-full text-sm text-red-600 dark:text-red-400">
          {state.error}
        </p>
      )}
    </form>
  );
}
