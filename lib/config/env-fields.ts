/**
 * zod fields for environment variables shared by the modules that parse their own settings
 * (lib/media/config.ts, lib/uploads/receive-gate.ts). `||` semantics, as in env.ts: an
 * empty or unset value is `undefined`, for the caller's default.
 */
import { z } from "zod";

/** An integer of at least `min`, or undefined when unset; anything else is an issue. */
export const optionalInt = (min: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = (v ?? "").trim();
      if (!s) return undefined;
      const n = Number(s);
      if (!Number.isInteger(n) || n < min) {
        ctx.addIssue({ code: "custom", message: `must be an integer >= ${min}` });
        return z.NEVER;
      }
      return n;
    });
