/** zod fields shared by modules that parse their own settings; an empty value is `undefined`, as in env.ts. */
import { z } from "zod";

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
