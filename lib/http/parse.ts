/** Parsers shared by every endpoint; a failure is a DomainError("invalid_request") naming the field. */
import { z } from "zod";
import { DomainError } from "@/lib/errors";

/** `true`/`false` only, trimmed and case-insensitive; absent → the default; else 400. */
export function booleanHeader(headers: Headers, name: string, fallback: boolean): boolean {
  const raw = headers.get(name);
  if (raw === null) return fallback;
  const v = raw.trim().toLowerCase();
  if (v === "true") return true;
  if (v === "false") return false;
  throw new DomainError("invalid_request", `Header ${name} must be true or false.`);
}

import { PRIVACIES, PRIVACY_CHOICES, type Privacy } from "@/lib/posts/privacy";

export { PRIVACIES, type Privacy };

export const privacyField = z.enum(PRIVACIES, { error: `privacy must be ${PRIVACY_CHOICES}.` });

/** `post-privacy`: public, unlisted or private (trimmed, case-insensitive); default private. */
export function privacyHeader(headers: Headers, name = "post-privacy"): Privacy {
  const raw = headers.get(name);
  if (raw === null) return "private";
  const v = raw.trim().toLowerCase();
  if ((PRIVACIES as readonly string[]).includes(v)) return v as Privacy;
  throw new DomainError("invalid_request", `Header ${name} must be ${PRIVACY_CHOICES}.`);
}

/** Code points; rejected past the limit, never truncated. */
export const limitedText = (field: string, max: number) =>
  z.string({ error: `${field} must be a string.` }).refine((s) => [...s].length <= max, {
    message: `${field} must be at most ${max} characters.`,
  });

export const LIMITS = { title: 30, description: 200, reason: 200, comment: 200, pageDefault: 30, pageMax: 100 } as const;

export const pagingQuery = z.object({
  limit: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return LIMITS.pageDefault;
      const n = /^\d{1,3}$/.test(v.trim()) ? Number(v.trim()) : NaN;
      if (!(n >= 1 && n <= LIMITS.pageMax)) {
        ctx.addIssue({ code: "custom", message: `limit must be an integer from 1 to ${LIMITS.pageMax}.` });
        return z.NEVER;
      }
      return n;
    })
    // On the wire a query value is text; the documents (and the SDK's types) say what it means.
    .meta({ type: "integer", minimum: 1, maximum: LIMITS.pageMax, description: `Page size (default ${LIMITS.pageDefault})` }),
  cursor: z
    .string()
    .optional()
    .transform((v) => (v === "" ? undefined : v))
    .meta({ description: "The previous page's next_cursor; omit it for the first page" }),
});
export type PagingQuery = z.output<typeof pagingQuery>;

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = input;
  for (const step of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[step];
  }
  return node;
}

const NO_INPUT = Symbol("no input");

/** The first zod issue, prefixed with where; "is required" decided from `input`, as Zod 4 leaves values out. */
export function describeZodError(where: string, error: z.ZodError, input: unknown = NO_INPUT): string {
  const issue = error.issues[0];
  if (!issue) return `Invalid ${where}.`;
  const path = issue.path.length ? issue.path.join(".") : "";
  const message = issue.message;
  const missing = input !== NO_INPUT ? valueAt(input, issue.path) === undefined : issue.input === undefined;
  if (issue.code === "invalid_type" && missing && path) return `${where} field ${path} is required.`;
  if (issue.code === "unrecognized_keys") return `Unknown ${where} field: ${issue.keys.join(", ")}.`;
  return path && !message.includes(path) ? `${where} field ${path}: ${message}` : message;
}
