/** The confirmation window (docs/security.md): a factor younger than it confirms nothing, so a stolen session cannot plant one (issue 39 §1). */
import { DomainError } from "@/lib/errors";

export const RECENT_CONFIRMATION_MS = 10 * 60 * 1000;
export const FACTOR_SETTLING_MS = RECENT_CONFIRMATION_MS;

export const factorSettled = (addedAt: Date | null | undefined, now = Date.now()): boolean =>
  addedAt !== null && addedAt !== undefined && now - addedAt.getTime() >= FACTOR_SETTLING_MS;

/** 403, as a missing confirmation: the caller confirms another way. */
export const unsettledFactor = (): DomainError =>
  new DomainError(
    "forbidden",
    "A factor added in the last 10 minutes cannot confirm changes yet: use your password or a factor you had before.",
    undefined,
    { confirmation_required: true },
  );
