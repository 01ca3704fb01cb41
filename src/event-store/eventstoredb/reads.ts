import {
  BACKWARDS,
  END,
  FORWARDS,
  START,
  StreamNotFoundError,
  type AllStreamResolvedEvent,
  type EventStoreDBClient,
  type Position,
  type ResolvedEvent,
  type StreamingRead,
} from '@eventstore/db-client';
import type { StoredEvent } from '../event-store';
import { isSystemEvent, numberToPosition, toStoredEvent } from './event-mapping';

/** $all interleaves our events with the server's own; read it in bounded pages and skip those. */
const READ_ALL_PAGE = 1000;
const READ_ALL_MIN_PAGE = 100;

export function isPositionAfter(a: Position, b: Position): boolean {
  return a.commit > b.commit || (a.commit === b.commit && a.prepare > b.prepare);
}

export function recordedPosition(item: AllStreamResolvedEvent): Position {
  if (item.event === undefined) throw new Error('EventStoreDB delivered an $all item without an event');
  return item.event.position;
}

export function recordedRevision(item: ResolvedEvent): bigint {
  if (item.event === undefined) throw new Error('EventStoreDB delivered a stream item without an event');
  return item.event.revision;
}

/** `after` as a native start: undefined means "from the start" (a negative cursor means the same). */
export function cursorAfter(after: number | undefined, what: string): number | undefined {
  if (after === undefined) return undefined;
  if (!Number.isSafeInteger(after)) throw new RangeError(`invalid ${what} cursor ${after}`);
  return after < 0 ? undefined : after;
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return Infinity;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`invalid limit ${limit}`);
  return limit;
}

/**
 * Reads `read` until `onItem` returns false or it ends. A read left early (or failing) is
 * cancelled explicitly: destroying the client's Readable alone would leave the gRPC call open.
 */
export async function consume<E>(read: StreamingRead<E>, onItem: (item: E) => boolean): Promise<void> {
  let complete = false;
  try {
    for await (const item of read) {
      if (!onItem(item)) return;
    }
    complete = true;
  } finally {
    if (!complete) await read.cancel().catch(() => undefined);
  }
}

export async function readStreamAfter(
  client: EventStoreDBClient,
  streamId: string,
  afterRevision: number | undefined,
  limitOption: number | undefined,
): Promise<StoredEvent[]> {
  const after = cursorAfter(afterRevision, 'revision');
  const limit = checkLimit(limitOption);
  if (limit === 0) return [];
  const read = client.readStream(streamId, {
    // Native stream reads include their start revision; the port's cursor excludes it.
    fromRevision: after === undefined ? START : BigInt(after + 1),
    maxCount: limit === Infinity ? Number.MAX_SAFE_INTEGER : limit,
    direction: FORWARDS,
  });
  const events: StoredEvent[] = [];
  try {
    await consume(read, (item) => {
      events.push(toStoredEvent(item));
      return true;
    });
  } catch (error) {
    if (error instanceof StreamNotFoundError) return [];
    throw error;
  }
  return events;
}

/** `map` of the stream's last event: one event read backwards from the end, or null for no stream. */
async function readLast<T>(client: EventStoreDBClient, streamId: string, map: (item: ResolvedEvent) => T): Promise<T | null> {
  const read = client.readStream(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 });
  let last: T | null = null;
  try {
    // maxCount 1 ends the read by itself; no need to cancel it.
    await consume(read, (item) => {
      last = map(item);
      return true;
    });
  } catch (error) {
    if (error instanceof StreamNotFoundError) return null;
    throw error;
  }
  return last;
}

/** The stream's last event, or null for no stream. */
export const readLastEvent = (client: EventStoreDBClient, streamId: string): Promise<StoredEvent | null> => readLast(client, streamId, toStoredEvent);

/** The stream's last revision, or null for no stream. */
export const readStreamHead = (client: EventStoreDBClient, streamId: string): Promise<number | null> =>
  readLast(client, streamId, (item) => Number(recordedRevision(item)));

/**
 * The tenant in the metadata of the stream's first event, or null for no stream. The client
 * decodes the event's data too (it cannot be told not to); what this spares is the mapping.
 */
export async function readStreamTenant(client: EventStoreDBClient, streamId: string): Promise<string | null> {
  const read = client.readStream(streamId, { fromRevision: START, direction: FORWARDS, maxCount: 1 });
  let tenant: string | null = null;
  try {
    await consume(read, (item) => {
      const metadata = item.event?.metadata as { tenantId?: unknown } | undefined;
      tenant = typeof metadata?.tenantId === 'string' ? metadata.tenantId : null;
      return true;
    });
  } catch (error) {
    if (error instanceof StreamNotFoundError) return null;
    throw error;
  }
  return tenant;
}

export async function readAllAfter(
  client: EventStoreDBClient,
  afterPosition: number | undefined,
  limitOption: number | undefined,
  wants: (event: StoredEvent) => boolean = () => true,
): Promise<StoredEvent[]> {
  const after = cursorAfter(afterPosition, 'position');
  const limit = checkLimit(limitOption);
  const events: StoredEvent[] = [];
  // Native $all reads include their start position, so every page re-reads its first item.
  let from: Position | undefined = after === undefined ? undefined : numberToPosition(after);
  while (events.length < limit) {
    const pageSize = Math.min(READ_ALL_PAGE, Math.max(limit - events.length, READ_ALL_MIN_PAGE));
    let received = 0;
    const read = client.readAll({ fromPosition: from ?? START, maxCount: pageSize, direction: FORWARDS });
    await consume(read, (item) => {
      received += 1;
      const position = recordedPosition(item);
      if (from !== undefined && !isPositionAfter(position, from)) return true;
      from = position;
      // The client's readAll takes no server-side filter, so the port's filter is applied here.
      if (isSystemEvent(item)) return true;
      const event = toStoredEvent(item);
      if (wants(event)) events.push(event);
      return events.length < limit;
    });
    if (received < pageSize) break;
  }
  return events;
}

/** The commit position of the last record in $all (0 when empty): one record read backwards from the end. */
export async function readHeadPosition(client: EventStoreDBClient): Promise<number> {
  const read = client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 });
  let head = 0;
  await consume(read, (item) => {
    head = Number(recordedPosition(item).commit);
    return true;
  });
  return head;
}
