"use client";
/** Runs a dashboard server action (lib/web/dashboard/actions.ts) in a transition and keeps its error for the panel. */
import { useState, useTransition } from "react";
import type { ActionResult } from "@/lib/web/dashboard/result";

/** Runs `work`; on success hands its value to `done`, on failure keeps the error to show. */
export type Act = <T>(work: () => Promise<ActionResult<T>>, done: (value: T) => void) => void;

/**
 * `act` clears the last error, runs the action, then calls `done` with its value (and
 * `afterSuccess`, e.g. a router refresh) or keeps its error. `pending` while one runs.
 */
export function useAction(afterSuccess?: () => void): {
  act: Act;
  pending: boolean;
  error: string | null;
  /** The last action needs a recent confirmation (docs/security.md): the panel shows the confirm form. */
  needsConfirmation: boolean;
  /** After the confirm form succeeded: the form goes, and a note says to try again. */
  confirmed: () => void;
} {
  const [error, setError] = useState<string | null>(null);
  const [needsConfirmation, setNeedsConfirmation] = useState(false);
  const [pending, startTransition] = useTransition();
  const act: Act = (work, done) =>
    startTransition(async () => {
      setError(null);
      setNeedsConfirmation(false);
      const result = await work();
      if (!result.ok) {
        setNeedsConfirmation(result.confirmationRequired === true);
        return setError(result.error);
      }
      done(result.value);
      afterSuccess?.();
    });
  const confirmed = () => {
    setNeedsConfirmation(false);
    setError(null);
  };
  return { act, pending, error, needsConfirmation, confirmed };
}
