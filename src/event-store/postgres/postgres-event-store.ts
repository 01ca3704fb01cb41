import { Pool, PoolConfig } from 'pg';
import { setMaxListeners } from 'node:events';
import { followUntil } from '../follow-until';
import {
  AllFilter,
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
} from '../event-store';
import { toRows } from './event-rows';
import { GroupCommit } from './group-commit';
import { PostgresInstances } from './instances';
import { PgNotifications } from './notifications';
import { asStoreUnavailable } from './postgres-errors';
import { AllChunk, countAllAfter, readAllChunk, readLastEvent, readStreamAfter, readStreamHead, readStreamTenant } from './reads';
import { migrate } from './schema';
import { SubscriptionContext, followAll, followStream } from './subscriptions';
import { CommittedAppend, RecentEvents } from '../recent-events';
import { PgAllTail } from './all-tail';
import { WakeHub, sleep } from '../wake-hub';
import { WriterClient } from '../writer-client';
import { spawnWorker } from '../../common/spawn-worker';
import type { PostgresWriterData } from './writer-thread';

export interface PostgresEventStoreOptions {
  /** Connections in the pool shared by reads and subscriptions (appends and the listener have their own). */
  poolSize?: number;
  connectTimeoutMs?: number;
  /**
   * `thread`: a writer thread owns the append connection and its group commit
   * (docs/design.md#the-postgresql-writer-thread); `inline` (the default here): this thread does.
   * The server uses POSTGRES_WRITER, `thread` unless set.
   */
  writer?: 'thread' | 'inline';
}

/** Where appends go: the group commit on this thread (with its own connection), or the writer thread. */
type Writer = { kind: 'inline'; pool: Pool; commits: GroupCommit } | { kind: 'thread'; client: WriterClient };

/** How long readAll and headPosition wait for this instance's own acknowledged appends to become readable. */
const OWN_WRITES_WAIT_MS = 500;

/**
 * The EventStore port over PostgreSQL (node-postgres), which several instances can share.
 *
 * - Appends: group commit on one connection, expected revisions checked in the transaction, the
 *   unique (stream_id, revision) as the guard against other instances (group-commit.ts).
 * - Positions: transaction id and index, read only below the oldest transaction in flight, so no
 *   reader ever skips an event that commits late (position.ts).
 * - Appends have a connection of their own: a commit never queues behind the reads it wakes.
 * - Wake-ups: in-process after each commit, LISTEN/NOTIFY between instances, as hints only
 *   (notifications.ts). A stream's followers take what this instance committed, or what its scan
 *   of other instances' commits read, from memory when that holds their next event
 *   (recent-events.ts); otherwise they read from their own position. Caught-up $all readers share
 *   one reader of the new events (all-tail.ts).
 * - Faults: connection loss, shutdown, full disk and the like reject appends and reads with
 *   StoreUnavailableError; subscriptions ride them out and resume from their last position.
 */
export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  readonly instances: PostgresInstances;
  private readonly hub = new WakeHub();
  private readonly recent = new RecentEvents();
  private readonly writer: Writer;
  /** Told the size of each group commit (metrics). */
  onCommit: ((appends: number, events: number) => void) | null = null;
  private readonly notifications: PgNotifications;
  private readonly closing = new AbortController();
  private readonly context: SubscriptionContext;
  /** The last position this instance acknowledged: its own reads of $all wait until they can see it. */
  private acknowledged = 0;

  private constructor(
    private readonly pool: Pool,
    config: PoolConfig,
    private readonly xidBase: bigint,
    writer: 'thread' | 'inline',
  ) {
    setMaxListeners(0, this.closing.signal);
    this.instances = new PostgresInstances(pool);
    this.context = {
      pool,
      xidBase,
      hub: this.hub,
      recent: (streamId, after) => this.recent.after(streamId, after),
      tail: new PgAllTail(pool, xidBase, this.hub),
    };
    this.notifications = new PgNotifications(config, pool, this.hub, xidBase, this.recent);
    const committed = (appends: CommittedAppend[], last: number): void => {
      this.acknowledged = Math.max(this.acknowledged, last);
      this.recent.recordAppends(appends, (streamId) => this.hub.isFollowed(streamId));
      this.notifications.committed(new Set(appends.map((a) => a.streamId)));
      this.onCommit?.(
        appends.length,
        appends.reduce((n, a) => n + a.rows.length, 0),
      );
    };
    if (writer === 'thread') {
      const workerData: PostgresWriterData = { config, xidBase };
      const client = new WriterClient(
        () => spawnWorker(__dirname, 'writer-thread', { workerData }),
        'the PostgreSQL writer thread',
        (appends) => committed(appends, Math.max(...appends.map((a) => a.result.position))),
      );
      this.writer = { kind: 'thread', client };
    } else {
      // One connection: the group commit runs one transaction at a time.
      const pool = new Pool({ ...config, max: 1 });
      pool.on('error', () => undefined);
      this.writer = { kind: 'inline', pool, commits: new GroupCommit(pool, xidBase, committed) };
    }
  }

  /** Connects, migrates and starts listening; a database that cannot be reached fails here, not at the first request. */
  static async connect(connectionString: string, options: PostgresEventStoreOptions = {}): Promise<PostgresEventStore> {
    const config: PoolConfig = {
      connectionString,
      application_name: 'runledger',
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      keepAlive: true,
    };
    const pool = new Pool({ ...config, max: options.poolSize ?? 10 });
    // An idle connection the server drops must not crash the process; the next use reconnects.
    pool.on('error', () => undefined);
    let store: PostgresEventStore | undefined;
    try {
      const { xidBase } = await migrate(pool);
      store = new PostgresEventStore(pool, config, xidBase, options.writer ?? 'inline');
      await store.notifications.start();
      return store;
    } catch (error) {
      await (store ? store.close() : pool.end()).catch(() => undefined);
      throw asStoreUnavailable(error, 'the event store at start');
    }
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closing.signal.aborted) return Promise.reject(new Error('event store is closed'));
    let checked: ReturnType<typeof toRows>;
    try {
      checked = toRows(streamId, events, expected);
    } catch (error) {
      return Promise.reject(error);
    }
    if (this.writer.kind === 'thread') return this.writer.client.append(streamId, checked.rows, expected);
    const { commits } = this.writer;
    return new Promise((resolve, reject) => commits.enqueue({ streamId, expected, ...checked, resolve, reject }));
  }

  /** Fault tests: the writer thread ends after its next commit, before acknowledging it. */
  crashWriterAfterNextCommit(): void {
    if (this.writer.kind !== 'thread') throw new Error('the inline writer has no thread to end');
    this.writer.client.crashAfterNextCommit();
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    // PostgreSQL text cannot hold NUL, so no stored stream has one in its id (ids in paths are opaque).
    if (streamId.includes('\0')) return [];
    return this.reading(`a read of ${streamId}`, () => readStreamAfter(this.pool, streamId, options.after ?? -1, options.limit ?? null));
  }

  async streamHead(streamId: string): Promise<number | null> {
    this.assertOpen();
    if (streamId.includes('\0')) return null;
    return this.reading(`the head of ${streamId}`, () => readStreamHead(this.pool, streamId));
  }

  async lastEvent(streamId: string): Promise<StoredEvent | null> {
    this.assertOpen();
    if (streamId.includes('\0')) return null;
    return this.reading(`the last event of ${streamId}`, () => readLastEvent(this.pool, streamId));
  }

  async streamTenant(streamId: string): Promise<string | null> {
    this.assertOpen();
    if (streamId.includes('\0')) return null;
    return this.reading(`the tenant of ${streamId}`, () => readStreamTenant(this.pool, streamId));
  }

  async readAll(options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const { after = 0, limit, types, filter } = options;
    const wanted: AllFilter | undefined = filter ? { ...filter, types: filter.types ?? types } : types ? { types } : undefined;
    const chunk = await this.readOwnWrites('a read of $all', () => readAllChunk(this.pool, this.xidBase, after, limit ?? null, wanted), limit);
    return chunk.events;
  }

  /** Counts rows as they are now, in-flight transactions aside: a lag needs no frontier. */
  async countAll({ after = 0, limit, filter }: CountOptions): Promise<number> {
    this.assertOpen();
    return this.reading('a count of $all', () => countAllAfter(this.pool, after, limit, filter));
  }

  /** The last position every reader can see: nothing will ever be stored at or below it. */
  async headPosition(): Promise<number> {
    this.assertOpen();
    const chunk = await this.readOwnWrites('the head of $all', () => readAllChunk(this.pool, this.xidBase, 0, 0));
    return chunk.stableHead;
  }

  subscribeToStream(streamId: string, { after, signal }: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    return followUntil(this.closing.signal, signal, (stop) => followStream(this.context, streamId, after, stop));
  }

  async *subscribeToAll({ after, signal }: SubscribeOptions = {}): AsyncGenerator<StoredEvent> {
    for await (const item of followUntil(this.closing.signal, signal, (stop) => followAll(this.context, after, undefined, stop))) {
      if (item.kind === 'event') yield item.event;
    }
  }

  /** Filtered in SQL; after a short read, everything below the frontier has been seen: the checkpoint. */
  subscribeToAllFiltered({ filter, after, signal }: FilteredSubscribeOptions): AsyncIterable<AllSubscriptionItem> {
    return followUntil(this.closing.signal, signal, (stop) => followAll(this.context, after, filter, stop));
  }

  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    // Appends already requested are committed, as the SQLite adapter does; new ones are refused.
    this.closing.abort();
    if (this.writer.kind === 'thread') await this.writer.client.close();
    else await this.writer.commits.drain();
    this.hub.wakeEveryone();
    await this.notifications.close();
    await Promise.all([this.pool.end(), this.writer.kind === 'inline' && this.writer.pool.end()]);
  }

  /**
   * Reads $all, waiting (briefly, bounded) until everything this instance has acknowledged is below
   * the frontier, so a caller that appended and then reads the log sees its own events even while
   * an older transaction elsewhere is still in flight.
   */
  private async readOwnWrites(what: string, read: () => Promise<AllChunk>, limit?: number): Promise<AllChunk> {
    const target = this.acknowledged;
    const deadline = performance.now() + OWN_WRITES_WAIT_MS;
    let pauseMs = 1;
    for (;;) {
      const chunk = await this.reading(what, read);
      const full = limit !== undefined && chunk.events.length >= limit;
      if (chunk.stableHead >= target || full || performance.now() >= deadline) return chunk;
      await sleep(pauseMs);
      pauseMs = Math.min(pauseMs * 2, 32);
    }
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
