/** A server action's result: Next hides thrown messages in production, so a DomainError becomes `{ ok: false, error }`. */
import { DomainError } from "@/lib/errors";

/** `confirmationRequired`: the change needs a recent confirmation first (docs/security.md); the panel offers it. */
export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: string; type: string; confirmationRequired?: boolean };

export async function attempt<T>(work: () => Promise<T>): Promise<ActionResult<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof DomainError) {
      const confirmationRequired = error.context?.confirmation_required === true;
      return { ok: false, error: error.message, type: error.type, ...(confirmationRequired ? { confirmationRequired } : {}) };
    }
    throw error;
  }
}
