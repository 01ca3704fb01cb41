import { ApiError, ErrorCode } from '../common/api-error';
import { DomainError, DomainErrorKind } from '../common/domain-error';
import { StoreUnavailableError } from '../event-store/event-store';

const CODE_OF: Record<DomainErrorKind, ErrorCode> = {
  not_found: 'NOT_FOUND',
  invalid_state: 'INVALID_STATE',
  action_not_found: 'ACTION_NOT_FOUND',
  action_already_resolved: 'ACTION_ALREADY_RESOLVED',
};

/** Seconds a client should wait before retrying a request the store could not take. */
export const STORE_RETRY_AFTER_SECONDS = 1;

/**
 * Domain refusals and store unavailability as the errors of docs/api.md#errors. The store's own message
 * stays in the log: the client learns what to do (retry), not the file system's state.
 */
export function applicationErrorToApi(error: unknown): ApiError | null {
  if (error instanceof DomainError) return new ApiError(CODE_OF[error.kind], error.message);
  if (error instanceof StoreUnavailableError) {
    return new ApiError('SERVICE_UNAVAILABLE', 'the event store cannot take writes right now; nothing was appended, retry shortly');
  }
  return null;
}
