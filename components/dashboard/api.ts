/**
 * Calls of the public API and Relay from the browser. Same-origin requests carry the
 * next-auth session cookie, which the dispatcher accepts as a full-access session
 * (lib/auth/web-session.ts), so the dashboard uses exactly the interface clients use.
 */
import type { z } from "zod";
import type { Privacy } from "@/lib/posts/privacy";
import type { BatchReply as BatchReplySchema } from "@/lib/presenters/posts";
import type { FileObject as FileSchema, PostPage as PostPageSchema, Post as PostSchema } from "@/lib/presenters/posts";
import type { OwnAccount as OwnAccountSchema } from "@/lib/presenters/users";

export class ApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

interface ErrorBody {
  error?: { type?: string; message?: string };
}

/** The error of a response body in words, whatever its shape. */
export function errorText(body: unknown, status: number): { type: string; message: string } {
  const error = (body as ErrorBody | null)?.error;
  if (error && typeof error.message === "string") return { type: error.type ?? "error", message: error.message };
  return { type: "error", message: `The server answered ${status}.` };
}

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const headers = new Headers(init.headers);
  if (init.body && typeof init.body === "string") headers.set("content-type", "application/json");
  const response = await fetch(path, { ...init, headers, credentials: "same-origin" });
  const body: unknown = await response.json().catch(() => null);
  if (!response.ok) {
    const { type, message } = errorText(body, response.status);
    throw new ApiError(type, message, response.status);
  }
  return body as T;
}

/**
 * The wire types are the route table's zod schemas (lib/presenters/), not a copy:
 * type-only imports, so no server code reaches the browser bundle.
 */
export type FileObject = z.output<typeof FileSchema>;
/** The reply a route's schema describes (`api<Reply<typeof WebhookList>>`): every panel types its calls so. */
export type Reply<Schema extends z.ZodType> = z.output<Schema>;
export type Post = z.output<typeof PostSchema>;
export type OwnAccount = z.output<typeof OwnAccountSchema>;
export type { Privacy };

export type PostPage = z.output<typeof PostPageSchema>;

/** POST /api/posts/batch (docs/bulk-actions.md). */
export type BatchReply = z.output<typeof BatchReplySchema>;
