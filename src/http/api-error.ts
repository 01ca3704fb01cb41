import { ErrorCode } from '../common/errors/app-error';

/** Every error docs/api.md#errors names, with its HTTP status: the one place codes meet statuses. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  UNAUTHENTICATED: 401,
  NOT_FOUND: 404,
  PROVIDER_NOT_FOUND: 404,
  ACTION_NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  INVALID_STATE: 409,
  ACTION_ALREADY_RESOLVED: 409,
  PAYLOAD_TOO_LARGE: 413,
  CAPABILITY_UNSUPPORTED: 422,
  RATE_LIMITED: 429,
  QUOTA_EXCEEDED: 429,
  PROVIDER_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_ERROR: 500,
} as const satisfies Record<ErrorCode, number>;

/**
 * An answer in the binding's error envelope, with its status and the headers that go with it.
 * Only the HTTP edge makes these (the rest of the code throws src/common/errors/ errors, which
 * application-errors.ts turns into these); the global filter renders them.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Overrides the code's usual status (415 is a VALIDATION_ERROR with its own status). */
    readonly status: number = ERROR_STATUS[code],
    readonly headers: Record<string, string> = {},
  ) {
    // An answer, not a fault: nothing prints its stack (the filter logs the stacks of unknown errors only).
    const frames = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = frames;
    this.name = 'ApiError';
  }
}

export const validationError = (message: string, details?: Record<string, unknown>) => new ApiError('VALIDATION_ERROR', message, details);

export function errorEnvelope(error: ApiError): { error: { code: string; message: string; details?: Record<string, unknown> } } {
  return {
    error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) },
  };
}
