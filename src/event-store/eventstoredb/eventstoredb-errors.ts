import { CancelledError, DeadlineExceededError, NotLeaderError, TimeoutError, UnavailableError, UnknownError } from '@eventstore/db-client';
import { StoreUnavailableError } from '../event-store';

/** gRPC status INTERNAL; @grpc/grpc-js is the client's dependency, not ours, so no import for one constant. */
const GRPC_INTERNAL = 13;

/**
 * A failure of the connection or the cluster rather than of the request: the server went away or
 * restarted (UNAVAILABLE), cut the call (CANCELLED from the server — the client swallows its own
 * cancellations), lost leadership, or did not answer in time (the client's deadline, or the
 * server's commit timeout, which the client reports as TimeoutError). Anything else — access
 * denied, a deleted stream, a conflict, a bug — is not worth a retry and stays as it is.
 */
export function isUnavailable(error: unknown): boolean {
  if (
    error instanceof UnavailableError ||
    error instanceof CancelledError ||
    error instanceof NotLeaderError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError
  ) {
    return true;
  }
  // A connection reset mid-call surfaces as INTERNAL ("Received RST_STREAM"), which the client
  // maps to UnknownError.
  if (error instanceof UnknownError && (error.code as number | undefined) === GRPC_INTERNAL) return true;
  // esdb+discover:// gives up on the gossip seeds with a plain Error carrying only this message.
  return error instanceof Error && /^Failed to discover after \d+ attempts/.test(error.message);
}

/** The port's typed error for what the client reports as unavailability; anything else unchanged. */
export function asStoreUnavailable(error: unknown, what: string): unknown {
  if (!isUnavailable(error)) return error;
  const kind = (error as Error).constructor.name;
  return new StoreUnavailableError(`EventStoreDB cannot serve ${what} right now (${kind}): ${(error as Error).message}`, error);
}
