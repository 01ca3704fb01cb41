import { AppError } from './app-error';

/** The request itself is not valid: its body, path, query or a value in them. */
export class ValidationError extends AppError {
  readonly code = 'VALIDATION_ERROR';
}

/** No such resource for this tenant (another tenant's is not found either). */
export class NotFoundError extends AppError {
  readonly code = 'NOT_FOUND';
}

export class ProviderNotFoundError extends AppError {
  readonly code = 'PROVIDER_NOT_FOUND';
  constructor(readonly providerId: string) {
    super(`provider ${providerId} not found`);
  }
}

export class IdempotencyConflictError extends AppError {
  readonly code = 'IDEMPOTENCY_CONFLICT';
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'PAYLOAD_TOO_LARGE';
}

/** The provider does not offer what the request requires (docs/api.md#capability-preflight). */
export class CapabilityUnsupportedError extends AppError {
  readonly code = 'CAPABILITY_UNSUPPORTED';
}

/** Over a limit; `retryAfterSeconds` when the thrower knows how long the client should wait. */
export class RateLimitedError extends AppError {
  readonly code = 'RATE_LIMITED';
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** The tenant's token budget for the month is used up (docs/api.md#usage-and-budgets): `details: { used, budget }`. */
export class QuotaExceededError extends AppError {
  readonly code = 'QUOTA_EXCEEDED';
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    details: { used: number; budget: number },
  ) {
    super(message, details);
  }
}

/** The service cannot take the request right now (shutting down, a dependency out of reach); retry. */
export class ServiceUnavailableError extends AppError {
  protected static override readonly keepsStack = true;
  readonly code = 'SERVICE_UNAVAILABLE';
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** No credentials, or ones that are not valid; `tokenRejected` when a token was sent and refused. */
export class UnauthenticatedError extends AppError {
  readonly code = 'UNAUTHENTICATED';
  constructor(
    message: string,
    readonly tokenRejected: boolean,
  ) {
    super(message);
  }
}
