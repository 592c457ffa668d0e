/**
 * The confirmation window (docs/security.md). A factor younger than FACTOR_SETTLING_MS does
 * not confirm anything: not a session (POST /auth/confirm, a passkey sign-in), not a change
 * that takes its proof in the request. Without it a stolen session could enrol a factor and
 * then use it as its "it is you" proof (issue 39 §1).
 */
import { DomainError } from "@/lib/errors";

export const RECENT_CONFIRMATION_MS = 10 * 60 * 1000;
export const FACTOR_SETTLING_MS = RECENT_CONFIRMATION_MS;

/** Whether a factor added at `addedAt` may confirm now. */
export const factorSettled = (addedAt: Date | null | undefined, now = Date.now()): boolean =>
  addedAt !== null && addedAt !== undefined && now - addedAt.getTime() >= FACTOR_SETTLING_MS;

/** The refusal of a factor that is too new (403, as a missing confirmation: the caller confirms another way). */
export const unsettledFactor = (): DomainError =>
  new DomainError(
    "forbidden",
    "A factor added in the last 10 minutes cannot confirm changes yet: use your password or a factor you had before.",
    undefined,
    { confirmation_required: true },
  );
