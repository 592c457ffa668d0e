/**
 * tus-js-client (the reference tus client) driving the real server, and raw tus requests
 * for what a well-behaved client never sends. docs/resumable-uploads.md.
 */
import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import * as tus from "tus-js-client";
import type { Plan } from "@/lib/plans";
import type { TestServer } from "./server";
import { serverApp, serverUser } from "./server-accounts";

export interface TusOutcome {
  /** `Upload-Post` of the last response: the share code of the post. */
  post: string | null;
  url: string;
}

export interface TusRun {
  upload: tus.Upload;
  /** Resolves on success, rejects with the client's error (its `originalResponse` holds our reply). */
  done: Promise<TusOutcome>;
  /** Upload-Offset of every PATCH the client sent, in order. */
  patchOffsets: number[];
}

export function startTus(
  data: Buffer,
  options: {
    endpoint: string;
    key: string;
    uploadUrl?: string;
    metadata?: Record<string, string>;
    chunkSize?: number;
    onChunk?: (accepted: number, upload: tus.Upload) => void;
  },
): TusRun {
  const patchOffsets: number[] = [];
  let post: string | null = null;
  let upload!: tus.Upload;
  const done = new Promise<TusOutcome>((resolve, reject) => {
    upload = new tus.Upload(data, {
      endpoint: options.endpoint,
      uploadUrl: options.uploadUrl ?? null,
      headers: { "api-key": options.key },
      metadata: options.metadata ?? {},
      chunkSize: options.chunkSize ?? Infinity,
      // Retries would hide the statuses the tests look at.
      retryDelays: null,
      uploadSize: data.length,
      onBeforeRequest: (req) => {
        if (req.getMethod() === "PATCH") patchOffsets.push(Number(req.getHeader("Upload-Offset")));
      },
      onAfterResponse: (_req, res) => {
        post = res.getHeader("Upload-Post") ?? post;
      },
      onChunkComplete: (_size, accepted) => options.onChunk?.(accepted, upload),
      onSuccess: () => resolve({ post, url: upload.url! }),
      onError: (error) => reject(error),
    });
  });
  upload.start();
  return { upload, done, patchOffsets };
}

/** The HTTP status of a tus-js-client failure. */
export function failureStatus(error: unknown): number | undefined {
  return (error as tus.DetailedError).originalResponse?.getStatus();
}
export function failureBody(error: unknown): { error: { type: string } } | undefined {
  const text = (error as tus.DetailedError).originalResponse?.getBody();
  return text ? (JSON.parse(text) as { error: { type: string } }) : undefined;
}

/** A raw tus request (HEAD, PATCH, DELETE, POST) with the key and Tus-Resumable unless overridden. */
export async function tusRequest(
  url: string,
  key: string,
  method: string,
  headers: Record<string, string> = {},
  body?: Buffer,
): Promise<Response> {
  return fetch(url, {
    method,
    headers: { "api-key": key, "tus-resumable": "1.0.0", ...headers },
    body: body ? new Uint8Array(body) : undefined,
  });
}

/**
 * A user on the server's database and an API key with gallery access, made in-process as the
 * admin CLI's `user create` and `app create` would (./server-accounts.ts).
 */
export async function tusAccount(
  server: Pick<TestServer, "env">,
  username: string,
  plan: Plan = "free",
): Promise<{ key: string; id: string }> {
  const user = await serverUser(server, username, plan);
  const { key } = await serverApp(server, username, "tus", { galleryAccess: true });
  return { key, id: user.id };
}

/** Weekly quota used, as GET /users/@me reports it. */
export async function quotaUsed(base: string, key: string): Promise<number> {
  const reply = await fetch(`${base}/api/users/@me`, { headers: { "api-key": key } });
  const body = (await reply.json()) as { user?: { limits: { usage: { used: number } } }; limits?: { usage: { used: number } } };
  return (body.user ?? body).limits!.usage.used;
}

/** Chunk folders left on the disk storage (DATA_DIR/files/tus). */
export function diskChunks(dataDir: string): string[] {
  const root = join(dataDir, "files", "tus");
  return existsSync(root) ? readdirSync(root) : [];
}

/** Polls `read` until `done(value)`, for state another process changes (at most `ms`). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
}
