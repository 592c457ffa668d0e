/**
 * Calls of the public API and Relay from the browser. Same-origin requests carry the
 * next-auth session cookie, which the dispatcher accepts as a full-access session
 * (lib/auth/web-session.ts), so the dashboard uses exactly the interface clients use.
 */
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

export interface FileObject {
  name: string;
  url: string;
  size: number;
  mime_type: string;
  width: number | null;
  height: number | null;
  duration?: number | null;
  thumbnail_url: string | null;
  /** Priority delivery: the HLS master playlist once ready (docs/priority-delivery.md). */
  stream_url?: string | null;
  stream_state?: "queued" | "processing" | "ready" | "failed" | null;
}

export type Privacy = "public" | "unlisted" | "private";

export interface Post {
  code: string;
  url: string;
  title: string | null;
  description: string | null;
  privacy: Privacy;
  created_at: string;
  view_count: number;
  like_count: number | null;
  comment_count: number;
  file_count: number;
  files: FileObject[];
  team_id: string | null;
  moderated?: boolean;
  expires_at: string | null;
  max_views: number | null;
  password_protected?: boolean;
}

export interface PostPage {
  posts: Post[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface OwnAccount {
  id: string;
  username: string;
  nickname: string;
  avatar: string;
  banner: string | null;
  bio: string | null;
  email: string | null;
  plan: "free" | "plus" | "ultra";
  theme: unknown;
  link_domain: string | null;
  upload_count: number;
  limits: {
    usage: { quota: number; used: number; remaining: number; resets_at: string };
    priority: { minutes_left: number; minutes: number; resets_at: string };
  };
  upload_limits: { file_bytes: number; request_bytes: number };
}
