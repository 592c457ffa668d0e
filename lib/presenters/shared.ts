/** Reply pieces every area uses, checked against every reply outside production (docs/http-core.md, "OpenAPI"). */
import { z } from "zod";
import { ERROR_TYPES } from "@/lib/errors";

export const iso = z.string().describe("ISO 8601 UTC timestamp");

export const ErrorBody = z
  .object({
    error: z.looseObject({ type: z.enum(ERROR_TYPES as [string, ...string[]]), message: z.string() }),
  })
  .meta({ id: "Error" });

/** `{<key>: [...], has_more, next_cursor}`: what pageReply (lib/http/cursor.ts) builds. */
export const paged = <K extends string, T extends z.ZodType>(key: K, item: T) =>
  z.object({ [key]: z.array(item), has_more: z.boolean(), next_cursor: z.string().nullable() } as {
    [P in K]: z.ZodArray<T>;
  } & { has_more: z.ZodBoolean; next_cursor: z.ZodNullable<z.ZodString> });

/** `{<key>: "...", deleted: true}`: the answer of every DELETE that names what it removed. */
export const deleted = <K extends string>(key: K) =>
  z.object({ [key]: z.string(), deleted: z.literal(true) } as Record<K, z.ZodString> & { deleted: z.ZodLiteral<true> });

export const DeletedId = deleted("id");
export const DeletedCode = deleted("code");

/** POST .../report: also when the same reporter had already reported the target (docs/reports.md). */
export const Reported = z.object({ reported: z.literal(true) });
