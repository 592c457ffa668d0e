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
export function useAction(afterSuccess?: () => void): { act: Act; pending: boolean; error: string | null } {
  const [error, setError] = useState<string | null>(null);
  const [pending, startTransition] = useTransition();
  const act: Act = (work, done) =>
    startTransition(async () => {
      setError(null);
      const result = await work();
      if (!result.ok) return setError(result.error);
      done(result.value);
      afterSuccess?.();
    });
  return { act, pending, error };
}
