/**
 * Path, query and body pieces that several areas share. A schema that one area alone reads
 * lives next to the handler that parses it, in lib/routes/<area>.ts (docs/architecture.md,
 * "One place per kind").
 */
import { z } from "zod";
import { LIMITS, limitedText, pagingQuery } from "@/lib/http/parse";
import { SESSION_NAME_MAX_LENGTH } from "@/lib/sessions/sessions";

export const codeParam = z.object({
  code: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "code is not a valid share code."),
});
export const idParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_@.-]+$/, "id is not a valid id."),
});

export const pageQuery = pagingQuery;

/** POST .../report on posts, users (reports area) and comments (social area). */
export const reportBody = z.object({ reason: limitedText("reason", LIMITS.reason).nullable().optional() });

/** Control characters other than line breaks and tabs: invisible and they break layouts. */
export const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
export const LINE_BREAK = /[\r\n\t]/;

/** The device name of a new Relay session (sign-in by password or passkey, sign-up). */
export const deviceField = z
  .string()
  .max(SESSION_NAME_MAX_LENGTH, `device must be at most ${SESSION_NAME_MAX_LENGTH} characters.`)
  .refine((s) => !CONTROL.test(s) && !LINE_BREAK.test(s), "device must be one line without control characters.")
  .optional()
  .describe("Name shown in GET /sessions; default: read from the User-Agent");
