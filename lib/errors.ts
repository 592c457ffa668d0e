/**
 * The service's error vocabulary (docs/architecture.md, "Domain and features know nothing of
 * HTTP"): domain code throws DomainError with a stable `type`; the HTTP layer picks the status.
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

/** Where the status is not the type's (an expired upload is `not_found` and `gone`): domain code names the condition, never a status. */
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
    public readonly context?: Record<string, unknown>,
    public readonly retryAfter?: number,
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

/** The error object (docs/http-core.md, "Where each rule lives"); context never overrides type or message. */
export const errorBody = (type: ErrorType, message: string, context?: Record<string, unknown>) => ({
  error: { ...context, type, message },
});

export const errorBodyOf = (error: DomainError) => errorBody(error.type, error.message, error.context);
