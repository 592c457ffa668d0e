"use client";
/**
 * The "Confirm it is you" form a panel shows when a change was refused for want of a recent
 * confirmation (403 with `confirmation_required`, docs/security.md): the password or a code,
 * then the person tries the change again.
 */
import { ProofForm } from "./sign-in-factors";

export function ConfirmFirst({ onConfirmed }: { onConfirmed: () => void }) {
  return (
    <div className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-3 dark:border-amber-700 dark:bg-amber-950/40">
      <p className="text-sm">New keys and webhooks need your password or a code given in the last 10 minutes. Confirm, then try again.</p>
      <ProofForm action="confirm" onDone={() => onConfirmed()} />
    </div>
  );
}
