import { AppError } from '../common/errors/app-error';
import { QuotaExceededError, RateLimitedError, ServiceUnavailableError, UnauthenticatedError } from '../common/errors/request-errors';
import { StoreUnavailableError } from '../event-store/event-store';
import { ApiError } from './api-error';

/** Seconds a client should wait before retrying a request the store could not take. */
export const STORE_RETRY_AFTER_SECONDS = 1;

/** The headers an error's answer carries: RFC 6750's challenge on a 401, `Retry-After` when the thrower knows the wait. */
function headersOf(error: AppError): Record<string, string> {
  if (error instanceof UnauthenticatedError) {
    return { 'www-authenticate': error.tokenRejected ? 'Bearer realm="runledger", error="invalid_token"' : 'Bearer realm="runledger"' };
  }
  const waits = error instanceof RateLimitedError || error instanceof ServiceUnavailableError || error instanceof QuotaExceededError;
  if (waits && error.retryAfterSeconds !== undefined) {
    return { 'retry-after': String(error.retryAfterSeconds) };
  }
  return {};
}

/**
 * Application and domain errors, and store unavailability, as the answers of docs/api.md#errors.
 * The store's own message stays in the log: the client learns what to do (retry), not the file
 * system's state.
 */
export function applicationErrorToApi(error: unknown): ApiError | null {
  if (error instanceof AppError) return new ApiError(error.code, error.message, error.details, undefined, headersOf(error));
  if (error instanceof StoreUnavailableError) {
    return new ApiError('SERVICE_UNAVAILABLE', 'the event store cannot take writes right now; nothing was appended, retry shortly');
  }
  return null;
}
