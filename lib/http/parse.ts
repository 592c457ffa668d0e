/**
 * Parsers shared by every endpoint: boolean headers, privacy, text limits, paging.
 * Every failure is a DomainError("invalid_request") naming the field.
 */
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

/** A `privacy` field of a query or body: one of the privacies, else 400 saying which. */
export const privacyField = z.enum(PRIVACIES, { error: `privacy must be ${PRIVACY_CHOICES}.` });

/** `post-privacy`: public, unlisted or private (trimmed, case-insensitive); default private. */
export function privacyHeader(headers: Headers, name = "post-privacy"): Privacy {
  const raw = headers.get(name);
  if (raw === null) return "private";
  const v = raw.trim().toLowerCase();
  if ((PRIVACIES as readonly string[]).includes(v)) return v as Privacy;
  throw new DomainError("invalid_request", `Header ${name} must be ${PRIVACY_CHOICES}.`);
}

/** Text with a maximum length in characters (code points): rejected past it, never truncated. */
export const limitedText = (field: string, max: number) =>
  z.string({ error: `${field} must be a string.` }).refine((s) => [...s].length <= max, {
    message: `${field} must be at most ${max} characters.`,
  });

export const LIMITS = { title: 30, description: 200, reason: 200, comment: 200, pageDefault: 30, pageMax: 100 } as const;

/** `limit` 1..100 (default 30) and an optional `cursor`. */
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

/** The value at a zod issue's path, or undefined when any step of it is missing. */
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = input;
  for (const step of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[step];
  }
  return node;
}

const NO_INPUT = Symbol("no input");

/**
 * A readable message for a zod failure: the first issue, prefixed with where it was.
 * Zod 4 leaves the offending value out of its issues, so "is required" is decided from
 * `input` (the parsed value) when the caller passes it: a wrong type is not a missing field.
 */
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
