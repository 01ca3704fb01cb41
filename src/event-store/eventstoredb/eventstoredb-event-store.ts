import {
  ANY,
  NO_STREAM,
  START,
  WrongExpectedVersionError,
  excludeSystemEvents,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type EventStoreDBClient,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { setMaxListeners } from 'node:events';
import { followUntil } from '../follow-until';
import {
  AllSubscriptionItem,
  AppendResult,
  CountOptions,
  EventStore,
  ExpectedRevision,
  FilteredSubscribeOptions,
  NewEvent,
  ReadOptions,
  StoredEvent,
  SubscribeOptions,
  WrongExpectedRevisionError,
} from '../event-store';
import { catchUp } from './catch-up';
import { openClient } from './connection';
import { isSystemEvent, numberToPosition, positionToNumber, toEventData, toStoredEvent } from './event-mapping';
import { asStoreUnavailable } from './eventstoredb-errors';
import { followFiltered, matcherOf } from './filtered-subscription';
import {
  cursorAfter,
  isPositionAfter,
  readAllAfter,
  readHeadPosition,
  readStreamAfter,
  readLastEvent,
  readStreamHead,
  readStreamTenant,
  recordedPosition,
  recordedRevision,
} from './reads';

const CONNECT_TIMEOUT_MS = 5_000;

function nativeExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'any') return ANY;
  if (!Number.isSafeInteger(expected) || expected < 0) throw new RangeError(`invalid expected revision ${expected}`);
  return BigInt(expected);
}

/**
 * The EventStore port over EventStoreDB / KurrentDB (gRPC, @eventstore/db-client).
 *
 * Revisions are the native stream revisions. Global positions are the commit offsets of the
 * native $all positions (see positionToNumber for why one number is exact). Metadata and
 * occurredAt travel in each event's metadata JSON; event ids are the native event ids, so the
 * server itself recognises a retried append. Subscriptions are the server's catch-up
 * subscriptions, resubscribed from the last delivered event (or checkpoint) after a connection
 * drop. Connection, leader and deadline failures surface as StoreUnavailableError on every call
 * (eventstoredb-errors.ts); a conflict as WrongExpectedRevisionError.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly kind = 'eventstoredb' as const;
  /** Heartbeats are not built on EventStoreDB yet: run one Runledger instance per server (docs/operations.md#current-limits). */
  readonly instances = null;
  private readonly closing = new AbortController();

  private constructor(private readonly client: EventStoreDBClient) {
    // Every open subscription listens here; dozens are normal, not a leak to warn about.
    setMaxListeners(0, this.closing.signal);
  }

  /** Connects and proves the server answers, so a wrong address fails at start-up, not at the first request. */
  static async connect(connectionString: string, options: { timeoutMs?: number } = {}): Promise<EventStoreDbEventStore> {
    return new EventStoreDbEventStore(await openClient(connectionString, options.timeoutMs ?? CONNECT_TIMEOUT_MS));
  }

  async append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    this.assertOpen();
    if (events.length === 0) throw new Error('append needs at least one event');
    const expectedRevision = nativeExpected(expected);
    const now = new Date().toISOString();
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((event) => toEventData(event, now)),
        { expectedRevision },
      );
      const nextRevision = Number(result.nextExpectedRevision);
      return {
        nextRevision,
        // The server reports the log offset of the batch's last event; should a reply ever lack
        // it, the appended event itself has it, and the append must not look failed for that.
        position: result.position ? positionToNumber(result.position, `the append to ${streamId}`) : await this.positionOf(streamId, nextRevision),
      };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedRevisionError(streamId, expected, typeof actual === 'bigint' ? Number(actual) : actual === NO_STREAM ? null : undefined);
      }
      throw asStoreUnavailable(error, `the append to ${streamId}`);
    }
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    return this.reading(`a read of ${streamId}`, () => readStreamAfter(this.client, streamId, options.after, options.limit));
  }

  async streamHead(streamId: string): Promise<number | null> {
    this.assertOpen();
    return this.reading(`the head of ${streamId}`, () => readStreamHead(this.client, streamId));
  }

  async lastEvent(streamId: string): Promise<StoredEvent | null> {
    this.assertOpen();
    return this.reading(`the last event of ${streamId}`, () => readLastEvent(this.client, streamId));
  }

  async streamTenant(streamId: string): Promise<string | null> {
    this.assertOpen();
    return this.reading(`the tenant of ${streamId}`, () => readStreamTenant(this.client, streamId));
  }

  async readAll(options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const filter = options.filter ?? (options.types ? { types: options.types } : undefined);
    const wants = filter ? matcherOf({ ...filter, types: filter.types ?? options.types }) : undefined;
    return this.reading('a read of $all', () => readAllAfter(this.client, options.after, options.limit, wants));
  }

  /**
   * The client has no count of $all, nor a server-side filter for its reads: this reads up to
   * `limit` records. Callers bound `limit` (see projection-status.ts) and share one count.
   */
  async countAll({ after, limit, filter }: CountOptions): Promise<number> {
    this.assertOpen();
    const wants = filter ? matcherOf(filter) : undefined;
    return this.reading('a count of $all', async () => (await readAllAfter(this.client, after, limit, wants)).length);
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    return this.reading('the head of $all', () => readHeadPosition(this.client));
  }

  subscribeToStream(streamId: string, options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    const after = cursorAfter(options.after, 'revision');
    return followUntil(this.closing.signal, options.signal, (signal) =>
      catchUp<ResolvedEvent, bigint, StoredEvent>(
        {
          // Native subscriptions start after the given revision, as the port's cursor does.
          open: (cursor) => this.client.subscribeToStream(streamId, { fromRevision: cursor ?? START }),
          cursorOf: recordedRevision,
          isAfter: (a, b) => a > b,
        },
        after === undefined ? undefined : BigInt(after),
        toStoredEvent,
        signal,
      ),
    );
  }

  subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    const after = cursorAfter(options.after, 'position');
    return followUntil(this.closing.signal, options.signal, (signal) =>
      catchUp<AllStreamResolvedEvent, Position, StoredEvent>(
        {
          open: (cursor) => this.client.subscribeToAll({ fromPosition: cursor ?? START, filter: excludeSystemEvents() }),
          cursorOf: recordedPosition,
          isAfter: isPositionAfter,
        },
        after === undefined ? undefined : numberToPosition(after),
        // The server filter drops $-typed events; events of $-streams with other types remain.
        (item) => (isSystemEvent(item) ? undefined : toStoredEvent(item)),
        signal,
      ),
    );
  }

  /** Filtered on the server where it can, with its checkpoints in order; see filtered-subscription.ts. */
  subscribeToAllFiltered({ filter, after, signal }: FilteredSubscribeOptions): AsyncIterable<AllSubscriptionItem> {
    const start = cursorAfter(after, 'position');
    return followUntil(this.closing.signal, signal, (innerSignal) => followFiltered(this.client, filter, start, innerSignal));
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    // Ends every open subscription first: the client's dispose() cancels their calls in a way
    // that never ends the Readable they iterate.
    this.closing.abort();
    await this.client.dispose();
  }

  private async positionOf(streamId: string, revision: number): Promise<number> {
    const [event] = await readStreamAfter(this.client, streamId, revision - 1, 1);
    if (event?.revision !== revision) throw new Error(`${streamId}@${revision} was appended but cannot be read back`);
    return event.position;
  }

  private async reading<T>(what: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      throw asStoreUnavailable(error, what);
    }
  }

  private assertOpen(): void {
    if (this.closing.signal.aborted) throw new Error('event store is closed');
  }
}
