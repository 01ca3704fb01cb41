import { jsonEvent, type AllStreamResolvedEvent, type EventData, type Position, type ResolvedEvent } from '@eventstore/db-client';
import { newId } from '../../common/ids';
import type { EventMetadata, NewEvent, StoredEvent } from '../event-store';

/**
 * What goes into an EventStoreDB event's metadata JSON. `$correlationId`/`$causationId` are the
 * names the server's own projections ($by_correlation_id) understand; ours stay authoritative.
 */
interface StoredMetadata {
  tenantId: string;
  schemaVersion: number;
  correlationId: string | null;
  causationId: string | null;
  instanceId?: string;
  occurredAt: string;
  $correlationId?: string;
  $causationId?: string;
}

export function toEventData(event: NewEvent, now: string): EventData {
  // The client serialises inside a promise executor, where an unencodable payload (a BigInt, a
  // cycle) becomes an unhandled rejection that kills the process; fail this append instead.
  JSON.stringify(event.data);
  const { tenantId, schemaVersion, correlationId, causationId, instanceId } = event.metadata;
  const metadata: StoredMetadata = {
    tenantId,
    schemaVersion,
    correlationId,
    causationId,
    ...(instanceId !== undefined ? { instanceId } : {}),
    // Stamped by this process, as the SQLite adapter does, so a server clock running elsewhere
    // never leaks in and both adapters read the same value back through every read path.
    occurredAt: event.occurredAt ?? now,
  };
  if (correlationId !== null) metadata.$correlationId = correlationId;
  if (causationId !== null) metadata.$causationId = causationId;
  // The caller's id (or a fresh UUIDv7, as the SQLite adapter gives) becomes the native event id,
  // which the server also uses to recognise a retried append as already written.
  return jsonEvent({ id: event.id ?? newId(), type: event.type, data: event.data, metadata: { ...metadata } });
}

/**
 * Global positions as JS numbers.
 *
 * An $all position is the pair (commit, prepare) of byte offsets in the transaction log. Every
 * append through gRPC is written as "self-committed" prepares (PrepareFlags.IsCommitted, one
 * record per event, no separate commit record), and for those the server reports
 * commit == prepare == the event's own log offset, in $all reads, subscriptions and stream reads
 * alike; the append result carries the offset of the batch's last event. Only explicit
 * transactions of the legacy TCP API produce commit != prepare (several events sharing one
 * commit). So the commit offset alone is a strictly increasing, exact cursor, and
 * {commit: n, prepare: n} rebuilds the native position; offsets stay far below 2^53 (9 PB).
 * A pair that does not fit that rule is refused loudly rather than risk skipping events.
 */
export function positionToNumber(position: Position | undefined, what: string): number {
  if (position === undefined) {
    throw new Error(`EventStoreDB returned no log position for ${what}; the server must be 22.6 or newer`);
  }
  const commit = Number(position.commit);
  if (position.commit !== position.prepare || !Number.isSafeInteger(commit) || commit < 0) {
    throw new Error(
      `EventStoreDB position ${position.commit}/${position.prepare} of ${what} is not a self-committed event ` +
        '(written by a legacy TCP transaction?); this adapter cannot address it with a single number',
    );
  }
  return commit;
}

export function numberToPosition(position: number): Position {
  const value = BigInt(position);
  return { commit: value, prepare: value };
}

/** System events ($-prefixed types, e.g. $metadata, $>) and system streams are the server's, not ours. */
export function isSystemEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): boolean {
  const event = resolved.event;
  return event === undefined || event.type.startsWith('$') || event.streamId.startsWith('$');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
}

export function toStoredEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): StoredEvent {
  const event = resolved.event;
  if (event === undefined) throw new Error('EventStoreDB returned an unresolved link; links are not read by this adapter');
  const what = `event ${event.id} (${event.streamId}@${event.revision})`;
  const metadata = event.metadata;
  if (!event.isJson || !isPlainObject(event.data) || !isPlainObject(metadata)) {
    throw new Error(`${what} was not written by Runledger: it needs JSON data and JSON metadata`);
  }
  const stored = metadata as Partial<StoredMetadata>;
  if (typeof stored.tenantId !== 'string' || typeof stored.schemaVersion !== 'number') {
    throw new Error(`${what} was not written by Runledger: its metadata lacks tenantId/schemaVersion`);
  }
  const envelope: EventMetadata = {
    tenantId: stored.tenantId,
    schemaVersion: stored.schemaVersion,
    correlationId: stored.correlationId ?? null,
    causationId: stored.causationId ?? null,
    ...(typeof stored.instanceId === 'string' ? { instanceId: stored.instanceId } : {}),
  };
  return {
    id: event.id,
    streamId: event.streamId,
    revision: Number(event.revision),
    position: positionToNumber(event.position, what),
    type: event.type,
    data: event.data,
    metadata: envelope,
    occurredAt: typeof stored.occurredAt === 'string' ? stored.occurredAt : event.created.toISOString(),
  };
}
