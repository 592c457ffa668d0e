/**
 * One error class for every failed call (docs/sdk.md, "Errors"): the service's error body
 * (`{error: {type, message, ...context}}`, interface.md "Errors") plus what only the
 * response headers carry: `request-id` and `Retry-After`. Branch on `type`, never on
 * `message`.
 */
import type { components } from "./generated/api.js";

/** The stable error types of interface.md. */
export type ErrorType = components["schemas"]["Error"]["error"]["type"];

/**
 * `unexpected_response`: the reply was not the service's error object (a proxy's HTML
 * 502, a truncated body). The status is still the one received.
 */
export type MediaHostErrorType = ErrorType | "unexpected_response";

export class MediaHostError extends Error {
  override readonly name = "MediaHostError";
  /** Stable error type to branch on. */
  readonly type: MediaHostErrorType;
  /** HTTP status of the reply. */
  readonly status: number;
  /** The reply's `request-id` header: quote it when reporting a problem; null when absent. */
  readonly requestId: string | null;
  /** Seconds to wait before retrying, from `Retry-After` (429, 503); null when absent. */
  readonly retryAfter: number | null;
  /**
   * The error's context fields besides `type` and `message` (e.g. `quota`, `used`,
   * `resets_at` on quota_exceeded; `failed` on upload_failed; `username` on suspended).
   */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(init: {
    type: MediaHostErrorType;
    message: string;
    status: number;
    requestId: string | null;
    retryAfter: number | null;
    details?: Record<string, unknown>;
  }) {
    super(init.message);
    this.type = init.type;
    this.status = init.status;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
    this.details = init.details ?? {};
  }

  /** The error for a non-2xx reply whose body was already read (`body`: parsed JSON or text). */
  static fromResponse(response: Response, body: unknown): MediaHostError {
    const requestId = response.headers.get("request-id");
    const retryAfter = parseRetryAfter(response.headers.get("retry-after"));
    const error = isErrorBody(body) ? body.error : null;
    if (!error) {
      return new MediaHostError({
        type: "unexpected_response",
        message: `HTTP ${response.status} without the service's error object`,
        status: response.status,
        requestId,
        retryAfter,
      });
    }
    const { type, message, ...details } = error;
    return new MediaHostError({ type: type as ErrorType, message, status: response.status, requestId, retryAfter, details });
  }
}

/** True for a MediaHostError, of the given type when one is named. */
export function isMediaHostError(value: unknown, type?: MediaHostErrorType): value is MediaHostError {
  return value instanceof MediaHostError && (type === undefined || value.type === type);
}

function isErrorBody(body: unknown): body is { error: { type: string; message: string } & Record<string, unknown> } {
  if (typeof body !== "object" || body === null || !("error" in body)) return false;
  const error = (body as { error: unknown }).error;
  return (
    typeof error === "object" &&
    error !== null &&
    typeof (error as { type?: unknown }).type === "string" &&
    typeof (error as { message?: unknown }).message === "string"
  );
}

/** `Retry-After` is delta-seconds or an HTTP date (RFC 9110 §10.2.3); the service sends seconds. */
export function parseRetryAfter(value: string | null): number | null {
  if (value === null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
