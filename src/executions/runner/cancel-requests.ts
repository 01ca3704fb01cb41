import { EventStore } from '../../event-store/event-store';
import { nowIso } from '../../common/clock';

/**
 * A cancel that reaches an instance which does not run the execution is appended here, for the
 * owner to follow from the log (docs/operations.md): its own stream, outside the execution's, so the
 * execution's public events stay the binding's, and outside the projected and audited prefixes.
 */
export const CANCEL_REQUEST_PREFIX = 'cancel-request-';
export const CANCEL_REQUESTED = 'cancel.requested';

export async function requestCancel(store: EventStore, tenantId: string, executionId: string, reason: string | null): Promise<void> {
  await store.append(
    `${CANCEL_REQUEST_PREFIX}${executionId}`,
    [
      {
        type: CANCEL_REQUESTED,
        data: { reason },
        occurredAt: nowIso(),
        metadata: { tenantId, schemaVersion: 1, correlationId: executionId, causationId: null },
      },
    ],
    'any',
  );
}
