/**
 * Retries of S3 requests whose body is a file stream, which the SDK does not retry: each
 * attempt reads the file anew (docs/storage.md, "Retries").
 */

export interface RetryOptions {
  attempts: number;
  /** Doubled for each further try, with jitter. */
  baseDelayMs: number;
}

/** As the SDK's standard retry mode: 3 tries. */
export const S3_BODY_RETRIES: RetryOptions = { attempts: 3, baseDelayMs: 100 };

export function httpStatusOf(error: unknown): number | undefined {
  const meta = (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata;
  return meta?.httpStatusCode;
}

const RETRYABLE_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EAI_AGAIN"]);

/** 5xx, 429/SlowDown, 408 or a broken connection; any other 4xx would fail again the same way. */
export function isRetryableS3Error(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status !== undefined) return status >= 500 || status === 429 || status === 408;
  const { name, code } = (error ?? {}) as { name?: string; code?: string };
  return name === "TimeoutError" || name === "RequestTimeout" || (code !== undefined && RETRYABLE_CODES.has(code));
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

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
