import {
  AccessDeniedError,
  CancelledError,
  DeadlineExceededError,
  NotLeaderError,
  StreamDeletedError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  UnknownError,
  WrongExpectedVersionError,
  convertToCommandError,
} from '@eventstore/db-client';
import { StoreUnavailableError } from '../event-store';
import { asStoreUnavailable, isUnavailable } from './eventstoredb-errors';

/** gRPC status codes (@grpc/grpc-js is the client's dependency, not ours). */
const status = { CANCELLED: 1, UNKNOWN: 2, NOT_FOUND: 5, PERMISSION_DENIED: 7, ABORTED: 10, INTERNAL: 13, UNAVAILABLE: 14, DEADLINE_EXCEEDED: 4 };

/**
 * The client's own error objects, built the way it builds them: a gRPC ServiceError (code,
 * details, response metadata) through its convertToCommandError, so these are the classes and
 * codes a dropped connection, a leader change or a timeout really produce.
 */
function grpcFailure(code: number, details: string, headers: Record<string, string> = {}): unknown {
  const metadata = { getMap: () => headers };
  const error = Object.assign(new Error(`${code}: ${details}`), { code, details, metadata });
  return convertToCommandError(error as unknown as Parameters<typeof convertToCommandError>[0]);
}

describe('EventStoreDB errors', () => {
  it.each([
    ['a connection that cannot be made or was lost', grpcFailure(status.UNAVAILABLE, 'No connection established'), UnavailableError],
    ['a call the server cut', grpcFailure(status.CANCELLED, 'Call cancelled'), CancelledError],
    [
      'a leader change',
      grpcFailure(status.NOT_FOUND, 'Leader info available', {
        exception: 'not-leader',
        'leader-endpoint-host': '10.0.0.2',
        'leader-endpoint-port': '2113',
      }),
      NotLeaderError,
    ],
    ['an exceeded deadline', grpcFailure(status.DEADLINE_EXCEEDED, 'Deadline exceeded'), DeadlineExceededError],
    ['a server-side commit timeout', grpcFailure(status.ABORTED, 'Operation timed out'), TimeoutError],
    ['a stream reset mid-call', grpcFailure(status.INTERNAL, 'Received RST_STREAM with code 2'), UnknownError],
  ])('maps %s to StoreUnavailableError, keeping the cause', (_, native, nativeClass) => {
    expect(native).toBeInstanceOf(nativeClass);
    expect(isUnavailable(native)).toBe(true);
    const mapped = asStoreUnavailable(native, 'the append to execution-1');
    expect(mapped).toBeInstanceOf(StoreUnavailableError);
    expect((mapped as StoreUnavailableError).cause).toBe(native);
    expect((mapped as Error).message).toMatch(/^EventStoreDB cannot serve the append to execution-1 right now/);
  });

  it('maps a failed gossip discovery (a plain Error from the client) too', () => {
    expect(asStoreUnavailable(new Error('Failed to discover after 10 attempts.'), 'x')).toBeInstanceOf(StoreUnavailableError);
  });

  it.each([
    ['a conflict', new WrongExpectedVersionError(undefined, { streamName: 's', expected: 1n, current: 2n })],
    ['access denied', grpcFailure(status.PERMISSION_DENIED, 'Access denied', { exception: 'access-denied' })],
    ['a deleted stream', StreamDeletedError.fromStreamName('s')],
    ['an unknown stream', new StreamNotFoundError(undefined, 's')],
    ['an unknown server error', grpcFailure(status.UNKNOWN, 'Exception was thrown by handler')],
    ['a bug', new TypeError('x is undefined')],
  ])('leaves %s as it is', (_, native) => {
    expect(native).not.toBeInstanceOf(StoreUnavailableError);
    expect(isUnavailable(native)).toBe(false);
    expect(asStoreUnavailable(native, 'x')).toBe(native);
  });

  it("does not take the client's own cancellation (an unsubscribe) for a server that cut the call", () => {
    // The client keeps a cancellation it asked for as a bare gRPC error, not a CancelledError.
    const own = grpcFailure(status.CANCELLED, 'Cancelled on client');
    expect(own).not.toBeInstanceOf(CancelledError);
    expect(isUnavailable(own)).toBe(false);
    expect(own).not.toBeInstanceOf(AccessDeniedError);
  });
});
