import {
  START,
  eventTypeFilter,
  excludeSystemEvents,
  streamNameFilter,
  type AllStreamResolvedEvent,
  type EventStoreDBClient,
  type Filter,
  type Position,
} from '@eventstore/db-client';
import type { AllFilter, AllSubscriptionItem } from '../event-store';
import { catchUp } from './catch-up';
import { isSystemEvent, numberToPosition, toStoredEvent } from './event-mapping';
import { isPositionAfter, recordedPosition } from './reads';

/**
 * A filtered $all subscription. The server filters on one thing only (stream-name prefixes or
 * event-type prefixes, not both), so it filters on the stream prefixes when there are any —
 * usually the narrower part — else on the types, and `matcherOf` checks the whole filter here.
 * Its checkpoints are queued among the events by catchUp, so none overtakes an event it covers,
 * and a resubscription after a drop starts from the last event or checkpoint handed out.
 */
export function followFiltered(
  client: EventStoreDBClient,
  filter: AllFilter,
  after: number | undefined,
  signal: AbortSignal,
): AsyncGenerator<AllSubscriptionItem> {
  const matches = matcherOf(filter);
  // Events and checkpoints leave in strictly increasing port positions, never at or below `after`.
  let last = after ?? 0;
  return catchUp<AllStreamResolvedEvent, Position, AllSubscriptionItem>(
    {
      open: (cursor, onCheckpoint) => client.subscribeToAll({ fromPosition: cursor ?? START, filter: serverFilter(filter, onCheckpoint) }),
      cursorOf: recordedPosition,
      isAfter: isPositionAfter,
    },
    after === undefined ? undefined : numberToPosition(after),
    (item) => {
      if (isSystemEvent(item)) return undefined;
      const event = toStoredEvent(item);
      if (!matches(event)) return undefined;
      last = event.position;
      return { kind: 'event', event };
    },
    signal,
    (checkpoint) => {
      const position = checkpointToNumber(checkpoint);
      if (position <= last) return undefined;
      last = position;
      return { kind: 'checkpoint', position };
    },
  );
}

function serverFilter(filter: AllFilter, onCheckpoint: (position: Position) => void): Filter {
  // checkpointInterval 1: a checkpoint for every search window the server scans, so a consumer
  // that ignores most of the log still moves its checkpoint along. The client awaits the hook
  // inside its Transform, in the order the server sent it; catchUp keeps that order.
  const options = { checkpointInterval: 1, checkpointReached: (_: unknown, position: Position) => onCheckpoint(position) };
  if (filter.streamPrefixes?.length) return streamNameFilter({ prefixes: [...filter.streamPrefixes], ...options });
  if (filter.types?.length) return eventTypeFilter({ prefixes: [...filter.types], ...options });
  return excludeSystemEvents(options);
}

/**
 * The port's filter, checked on this side: the server filters on stream-name prefixes or on
 * event-type prefixes, never both, and a type prefix also lets `run.queued.v2` through for
 * `run.queued`. An empty list matches nothing, as it does in the SQLite adapter.
 */
export function matcherOf(filter: AllFilter): (event: { streamId: string; type: string; metadata?: { tenantId?: string } }) => boolean {
  const { streamPrefixes, types, tenantId } = filter;
  return (event) =>
    (streamPrefixes === undefined || streamPrefixes.some((prefix) => event.streamId.startsWith(prefix))) &&
    (types === undefined || types.includes(event.type)) &&
    (tenantId === undefined || event.metadata?.tenantId === tenantId);
}

/**
 * A server checkpoint as a port position that never claims more than was read. Our events sit at
 * (n, n) and are numbered n (see positionToNumber). The server's checkpoint is either the
 * position of a record it has scanned or, at the end of a catch-up page, the position where its
 * next read starts — possibly where the next event will be written. Only events strictly before
 * it are certainly read, so it becomes the largest n with (n, n) < (commit, prepare). That costs
 * at most one position of progress and never lets a consumer store a cursor past an event it
 * has not been given; the native position itself still serves for resubscribing.
 */
export function checkpointToNumber(position: Position): number {
  const value = position.prepare > position.commit ? position.commit : position.commit - 1n;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number < 0) {
    throw new Error(`EventStoreDB checkpoint ${position.commit}/${position.prepare} cannot be a port position`);
  }
  return number;
}
