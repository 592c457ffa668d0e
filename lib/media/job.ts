/**
 * One media job = several tool runs (probe, encode, thumbnail) under one time budget.
 * JobClock hands each run the time that is left, so the budget bounds the whole job, and
 * jobError turns tool failures into the domain errors a client sees.
 */
import { DomainError } from "@/lib/errors";
import { isMediaToolError, type RunOptions } from "./ffmpeg";
import { withCause } from "./sharp";

export class JobClock {
  private readonly endsAt: number;

  constructor(
    readonly budgetMs: number,
    readonly signal?: AbortSignal,
  ) {
    this.endsAt = Date.now() + budgetMs;
  }

  /** Options for the next tool run: the remaining budget and the job's abort signal. */
  run(): RunOptions {
    return { timeoutMs: Math.max(1, this.endsAt - Date.now()), signal: this.signal };
  }
}

/**
 * - the tool exited with an error → the file is corrupt or unplayable: invalid_request;
 * - over the time limit → invalid_request too (retrying the same file will not help, so
 *   not `unavailable`), with the limit in the message;
 * - aborted, could not start, fs errors → unchanged (internal or the caller's own abort).
 */
export function jobError(error: unknown, budgetMs: number, what: string): unknown {
  if (isMediaToolError(error)) {
    if (error.reason === "timeout") {
      const seconds = Math.round(budgetMs / 100) / 10;
      return withCause(new DomainError("invalid_request", `Processing the ${what} took longer than the ${seconds} s limit.`), error);
    }
    if (error.reason === "exit") {
      return withCause(new DomainError("invalid_request", `The ${what} is corrupt or cannot be played.`), error);
    }
  }
  return error;
}
