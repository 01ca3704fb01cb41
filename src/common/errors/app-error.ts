/**
 * The error codes of docs/api.md#errors: the one vocabulary every layer speaks. Which HTTP status
 * a code answers with is the HTTP layer's business alone (src/http/api-error.ts).
 */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHENTICATED',
  'NOT_FOUND',
  'PROVIDER_NOT_FOUND',
  'ACTION_NOT_FOUND',
  'IDEMPOTENCY_CONFLICT',
  'INVALID_STATE',
  'ACTION_ALREADY_RESOLVED',
  'PAYLOAD_TOO_LARGE',
  'CAPABILITY_UNSUPPORTED',
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'PROVIDER_ERROR',
  'SERVICE_UNAVAILABLE',
  'INTERNAL_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Codes that say the server (or what it depends on) failed, not that the request was refused. */
const FAULTS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['PROVIDER_ERROR', 'SERVICE_UNAVAILABLE', 'INTERNAL_ERROR']);

/** A failure the client is told about, by code and message (and `details`, machine-readable specifics). */
export abstract class AppError extends Error {
  abstract readonly code: ErrorCode;
  /**
   * Whether the error captures its stack. A refusal is an answer whose stack nothing prints, and
   * capturing one under Nest's and Fastify's async frames was 12 % of a refused request's event
   * loop in a profile; a fault's class says true, for the logs. A class whose code is in FAULTS
   * must say so: the code is a field, not yet set while the constructor decides.
   */
  protected static readonly keepsStack: boolean = false;

  constructor(
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    const frames = Error.stackTraceLimit;
    if (!(new.target as unknown as typeof AppError).keepsStack) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = frames;
    this.name = new.target.name;
  }
}

/**
 * A refusal of the request (bad input, unknown id, a state that forbids it, a limit): the service is
 * healthy, so a trace or an alert must not count it as a failure (docs/operations.md#traces).
 */
export const isRefusal = (error: unknown): error is AppError => error instanceof AppError && !FAULTS.has(error.code);
