/** One time budget for a job's several tool runs, and tool failures as the domain errors a client sees. */
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

/** Over the time limit is invalid_request too, not `unavailable`: retrying the same file will not help. */
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
