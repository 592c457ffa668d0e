/**
 * Retries of S3 requests whose body is a file stream. The SDK retries a failed request by
 * sending the same body again, which a consumed stream cannot do, so it does not retry
 * streaming requests at all: one 500 from the server failed a whole multipart upload.
 * Here each attempt builds its request anew (a fresh ranged read of the file), so a retry
 * resends exactly the bytes of the first try (docs/storage.md, "Retries").
 */

export interface RetryOptions {
  /** Tries in all, the first included. */
  attempts: number;
  /** Wait before the second try; doubled for each further one, with jitter. */
  baseDelayMs: number;
}

/** As the SDK's standard retry mode: 3 tries. */
export const S3_BODY_RETRIES: RetryOptions = { attempts: 3, baseDelayMs: 100 };

/** Status code of an SDK error (`$metadata.httpStatusCode`), if it has one. */
export function httpStatusOf(error: unknown): number | undefined {
  const meta = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata;
  return meta?.httpStatusCode;
}

const RETRYABLE_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EAI_AGAIN"]);

/**
 * Worth another try: a server error (5xx), throttling (429, SlowDown), a request timeout
 * (408) or a broken connection. Any other 4xx (bad credentials, missing bucket, a
 * cancelled upload) would fail again the same way.
 */
export function isRetryableS3Error(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status !== undefined) return status >= 500 || status === 429 || status === 408;
  const { name, code } = (error ?? {}) as { name?: string; code?: string };
  return name === "TimeoutError" || name === "RequestTimeout" || (code !== undefined && RETRYABLE_CODES.has(code));
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/** Runs `attempt` until it succeeds, fails with a non-retryable error, or runs out of tries. */
export async function withRetries<T>(attempt: () => Promise<T>, options: RetryOptions = S3_BODY_RETRIES): Promise<T> {
  for (let tried = 1; ; tried++) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= options.attempts || !isRetryableS3Error(error)) throw error;
      const delay = options.baseDelayMs * 2 ** (tried - 1);
      await sleep(delay / 2 + Math.random() * (delay / 2));
    }
  }
}
