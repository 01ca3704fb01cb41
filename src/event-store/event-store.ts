/**
 * The event store port. Every adapter (SQLite, EventStoreDB) implements it and passes the same
 * contract suite in test/event-store/.
 *
 * Cursors are exclusive: `after: 4` means "revisions 5, 6, …"; leaving `after` out means "from the
 * start". Stream revisions start at 0; global positions are positive and only increase.
 */

/** `no_stream`: the stream must not exist; `any`: no check; a number: the stream's last revision must be exactly that. */
export type ExpectedRevision = 'no_stream' | 'any' | number;

export interface EventMetadata {
  tenantId: string;
  schemaVersion: number;
  correlationId: string | null;
  causationId: string | null;
  /** The Runledger instance that appended the event (absent on events older than instances). */
  instanceId?: string;
}

export interface NewEvent {
  /**
   * Stable id (a UUID) chosen by the caller. Send the same ids again when retrying an append
   * whose outcome is unknown (a timeout, a lost acknowledgement): after a conflict the caller can
   * read the stream and see whether its events are already there. A fresh UUIDv7 when left out.
   */
  id?: string;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  /** ISO-8601 UTC with milliseconds; decided by the caller's clock. Defaults to the store's clock at append. */
  occurredAt?: string;
}

export interface StoredEvent {
  /** The id the event was appended with. */
  id: string;
  streamId: string;
  /** Position inside its stream, from 0. */
  revision: number;
  /** Position in the global log ($all); increases with every event. */
  position: number;
  type: string;
  data: Record<string, unknown>;
  metadata: EventMetadata;
  occurredAt: string;
}

/** Whether a stream whose last revision is `head` (null: no stream) takes an append that expects `expected`. */
export function revisionMatches(expected: ExpectedRevision, head: number | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return head === null;
  return head === expected;
}

/** An event as an adapter's writer stores it: id chosen, `occurredAt` stamped, data and metadata as JSON text. */
export interface EncodedEvent {
  id: string;
  type: string;
  data: string;
  metadata: string;
  tenantId: string;
  schemaVersion: number;
  occurredAt: string;
}

export interface AppendResult {
  /** The revision of the last event appended (the stream's new head). */
  nextRevision: number;
  /** The global position of the last event appended. */
  position: number;
}

export interface ReadOptions {
  after?: number;
  limit?: number;
  /** `readAll` only: just events of these types (`limit` counts those); positions stay global. */
  types?: readonly string[];
  /** `readAll` only: just the events that match (`limit` counts those). */
  filter?: AllFilter;
}

export interface CountOptions {
  after?: number;
  limit: number;
  filter?: AllFilter;
}

export interface SubscribeOptions {
  after?: number;
  /** Aborting ends the iteration cleanly, as does breaking out of `for await`. */
  signal?: AbortSignal;
}

/** Which events of `$all` a filtered subscription delivers; every given part must match. */
export interface AllFilter {
  /** Streams whose id starts with one of these (e.g. `execution-`). */
  streamPrefixes?: readonly string[];
  types?: readonly string[];
  /** Events whose metadata names this tenant. */
  tenantId?: string;
}

export interface FilteredSubscribeOptions extends SubscribeOptions {
  filter: AllFilter;
}

/**
 * What a filtered `$all` subscription yields, in log order: the events that match, and now and
 * then a checkpoint saying that everything up to `position` has been read (matching or not), so a
 * projection that ignores most of the log can still move its checkpoint. A checkpoint never
 * overtakes an event it covers: the consumer can store it once it has applied what came before.
 */
export type AllSubscriptionItem = { kind: 'event'; event: StoredEvent } | { kind: 'checkpoint'; position: number };

export interface EventStore {
  readonly kind: 'sqlite' | 'eventstoredb' | 'postgres';
  /**
   * Appends atomically at the expected revision. Rejects with `WrongExpectedRevisionError` on a
   * conflict and with `StoreUnavailableError` when the store cannot take writes (then the events
   * may or may not have been stored, see `NewEvent.id`); nothing else is a retryable failure.
   */
  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /** Events of one stream after `after` (a revision), oldest first. An unknown stream reads as empty. */
  readStream(streamId: string, options?: ReadOptions): Promise<StoredEvent[]>;
  /** The revision of the stream's last event, or `null` when the stream does not exist. */
  streamHead(streamId: string): Promise<number | null>;
  /**
   * The stream's last event, or `null` when the stream does not exist: "where is it and has it
   * ended" in one read, however long the stream.
   */
  lastEvent(streamId: string): Promise<StoredEvent | null>;
  /**
   * The tenant named by the stream's first event, or `null` when the stream does not exist: an
   * ownership check that reads a column, never the event's data (which may be large).
   */
  streamTenant(streamId: string): Promise<string | null>;
  /** Events of the global log after `after` (a position), oldest first. */
  readAll(options?: ReadOptions): Promise<StoredEvent[]>;
  /** The position of the last event in the global log, 0 when it is empty. */
  headPosition(): Promise<number>;
  /**
   * How many events of the global log after `after` match, counting at most `limit`: what a lag
   * needs, without reading (let alone parsing) the events. Probes and scrapes call it.
   */
  countAll(options: CountOptions): Promise<number>;
  /** The backlog after `after`, then live events, with no gap and no duplicate at the hand-over. */
  subscribeToStream(streamId: string, options?: SubscribeOptions): AsyncIterable<StoredEvent>;
  subscribeToAll(options?: SubscribeOptions): AsyncIterable<StoredEvent>;
  /**
   * Where several instances share this store, how they tell each other they are alive; null for
   * a store only one process may write (SQLite, whose file is locked to its process).
   */
  readonly instances: InstanceRegistry | null;
  /** `$all` filtered by the store (server-side where it can), with checkpoints; see `AllSubscriptionItem`. */
  subscribeToAllFiltered(options: FilteredSubscribeOptions): AsyncIterable<AllSubscriptionItem>;
  close(): Promise<void>;
}

/** Heartbeats of the instances sharing one store, by the store's own clock. */
export interface InstanceRegistry {
  /** Records that `instanceId` is alive now. */
  beat(instanceId: string): Promise<void>;
  /** The instances heard from within the last `lapseMs`. */
  alive(lapseMs: number): Promise<Set<string>>;
  /** Takes the instance out at once (a clean shutdown), so no one waits for its lapse. */
  leave(instanceId: string): Promise<void>;
}

/** Nest injection token for the configured adapter. */
export const EVENT_STORE = Symbol('EVENT_STORE');

/** The one error an append raises when the stream is not at the revision it expected. */
export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual last revision, or `null` when it does not exist (when the adapter knows). */
    readonly actual: number | null | undefined,
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${actual === null ? 'no_stream' : String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * The store cannot serve the request right now (disk full, I/O error, lost connection, leader
 * change): worth retrying later, unlike a conflict. Every adapter raises this one type.
 */
export class StoreUnavailableError extends Error {
  constructor(
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StoreUnavailableError';
  }
}
