/** What several parts of the route table share: surfaces, key kinds, reply schemas. */
import { z } from "zod";
import { Post } from "../../presenters/schemas";

export const BOTH = ["api", "relay"] as const;
export const RELAY = ["relay"] as const;
export const PERSONAL_AND_TEAM = ["personal", "team"] as const;
export const UPLOAD_FIELDS = { file: "One or more files (repeat the field)." };

export const postReply = z.object({ post: Post });
export const deleted = <K extends string>(key: K) => z.object({ [key]: z.string(), deleted: z.literal(true) } as Record<K, z.ZodString> & { deleted: z.ZodLiteral<true> });
export const failedEntry = z.object({ index: z.number().int(), error: z.looseObject({ type: z.string(), message: z.string() }) });

export const reported = z.object({ reported: z.literal(true) });
export const Session = z.object({ id: z.string(), name: z.string().nullable(), current: z.boolean(), created_at: z.string(), last_active_at: z.string() });


