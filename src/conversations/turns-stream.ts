import { nowIso } from '../common/clock';
import { EventStore, StoredEvent } from '../event-store/event-store';
import { Admission, TurnsState } from './domain/concurrency';

/**
 * A conversation's turns: one `execution.admitted` per execution started in it, in creation order
 * (docs/design.md#concurrency). Beside `conversation-<id>`, not on it: the prefix is outside the
 * projected and audited ones, so the audit feed and the read models stay the binding's.
 */
export const TURNS_PREFIX = 'turns-';
export const EXECUTION_ADMITTED = 'execution.admitted';
export const turnsStream = (conversationId: string) => `${TURNS_PREFIX}${conversationId}`;

export interface ReadTurns {
  state: TurnsState;
  /** The expected revision of the next admission. */
  revision: number | 'no_stream';
}

/** The last admission alone holds the state: one small read, however long the conversation. */
export async function readTurns(store: EventStore, conversationId: string): Promise<ReadTurns> {
  const last = await store.lastEvent(turnsStream(conversationId));
  if (last === null) return { state: { open: [] }, revision: 'no_stream' };
  return { state: turnsStateOf(last), revision: last.revision };
}

export const turnsStateOf = (event: StoredEvent): TurnsState => ({ open: (event.data as unknown as Admission).open });

/**
 * Appends admissions, in order, at the revision their state was read at: each decided on the state
 * the one before it left; a racing start makes them all conflict.
 */
export async function appendAdmissions(
  store: EventStore,
  tenantId: string,
  conversationId: string,
  admissions: readonly Admission[],
  expected: ReadTurns['revision'],
): Promise<void> {
  const occurredAt = nowIso();
  await store.append(
    turnsStream(conversationId),
    admissions.map((admission) => ({
      type: EXECUTION_ADMITTED,
      data: { ...admission },
      occurredAt,
      metadata: { tenantId, schemaVersion: 1, correlationId: admission.executionId, causationId: null },
    })),
    expected,
  );
}
