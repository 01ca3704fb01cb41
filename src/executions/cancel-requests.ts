import { nowIso } from '../common/clock';
import { EventStore, StoredEvent } from '../event-store/event-store';

/**
 * Every cancel is a request in the log, on a stream of its own beside the execution's
 * (docs/operations.md#several-instances-on-postgresql): the execution's public events stay the
 * binding's, and the prefix is outside the projected and audited ones. The instance running the
 * execution follows these requests and ends the run.
 */
export const CANCEL_REQUEST_PREFIX = 'cancel-request-';
export const CANCEL_REQUESTED = 'cancel.requested';

export interface CancelRequest {
  reason: string | null;
  /** The instance that owned the run when the request was made, so it alone need look at it. */
  owner: string | null;
}

export const cancelRequestStream = (executionId: string) => `${CANCEL_REQUEST_PREFIX}${executionId}`;
export const isCancelRequest = (event: StoredEvent) => event.type === CANCEL_REQUESTED && event.streamId.startsWith(CANCEL_REQUEST_PREFIX);
export const cancelledExecutionOf = (event: StoredEvent) => event.streamId.slice(CANCEL_REQUEST_PREFIX.length);

/**
 * Appends the first request only (`no_stream`): the first reason is the one the run ends with, and
 * a later request finds the stream there (a WrongExpectedRevisionError) and just waits for the end.
 */
export async function appendCancelRequest(store: EventStore, tenantId: string, executionId: string, request: CancelRequest): Promise<void> {
  await store.append(
    cancelRequestStream(executionId),
    [
      {
        type: CANCEL_REQUESTED,
        data: { ...request },
        occurredAt: nowIso(),
        metadata: { tenantId, schemaVersion: 1, correlationId: executionId, causationId: null },
      },
    ],
    'no_stream',
  );
}
