/**
 * The error vocabulary of the whole service (the OpenAPI documents' `Error` schema;
 * docs/architecture.md, "Domain and features know nothing of HTTP"). Domain code throws
 * DomainError with a stable `type`; the HTTP layer turns it into `{error: {type, message,
 * ...context}}` with the status below; the admin CLI prints the same object.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  suspended: 403,
  blocked: 403,
  moderated: 403,
  plan_required: 403,
  quota_exceeded: 400,
  unsupported_type: 400,
  upload_failed: 400,
  not_found: 404,
  method_not_allowed: 405,
  file_too_large: 413,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorType = keyof typeof ERROR_STATUS;
export const ERROR_TYPES = Object.keys(ERROR_STATUS) as ErrorType[];

export function statusOf(type: ErrorType): number {
  return ERROR_STATUS[type];
}

/**
 * What a domain says went wrong beyond the error's type, where the reply's status is not the
 * type's (the type stays what clients read): an expired upload is `not_found` and `gone`,
 * an offset that moved is `invalid_request` and a `conflict`. Domain code names the
 * condition, never a status; the status is read here, as the type's is in ERROR_STATUS.
 */
export const CONDITION_STATUS = {
  gone: 410,
  conflict: 409,
  locked: 423,
  /** Something the plan gives by the month is spent (Relay's priority minutes): a refusal, not a bad request. */
  exhausted: 403,
} as const;

export type ErrorCondition = keyof typeof CONDITION_STATUS;

export class DomainError extends Error {
  constructor(
    public readonly type: ErrorType,
    message: string,
    /** Overrides the table's status; the HTTP layer's alone (lib/http, lib/routes): domain code names a `condition`. */
    public readonly status?: number,
    /** Extra fields placed inside `error` next to type and message. */
    public readonly context?: Record<string, unknown>,
    /** Seconds for `Retry-After` on rate_limited and unavailable. */
    public readonly retryAfter?: number,
    /** The condition beside the type (CONDITION_STATUS), when there is one; see `DomainError.in`. */
    public readonly condition?: ErrorCondition,
  ) {
    super(message);
    this.name = "DomainError";
  }

  get httpStatus(): number {
    return this.status ?? (this.condition ? CONDITION_STATUS[this.condition] : statusOf(this.type));
  }

  /** An error of `type` in a named `condition` (`DomainError.in("gone", "not_found", "This upload has expired.")`). */
  static in(condition: ErrorCondition, type: ErrorType, message: string, context?: Record<string, unknown>): DomainError {
    return new DomainError(type, message, undefined, context, undefined, condition);
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;

/**
 * The error object (docs/http-core.md, "Where each rule lives"), the one place it is
 * shaped: `{error: {type, message, ...context}}`. HTTP replies, per-item `failed[]` entries (their `error`) and the admin
 * CLI's output all use it; context never overrides type or message.
 */
export const errorBody = (type: ErrorType, message: string, context?: Record<string, unknown>) => ({
  error: { ...context, type, message },
});

export const errorBodyOf = (error: DomainError) => errorBody(error.type, error.message, error.context);
