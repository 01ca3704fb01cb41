import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { lockCompanionFile, openOwnedSqliteFile, openShared } from '../../common/owned-sqlite-file';
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
} from '../event-store';
import { CommittedAppend, RecentEvents, lastEventOf } from '../recent-events';
import { StreamReads } from './stream-reads';
import { AcknowledgedPosition } from './acknowledged-position';
import { AllFollowers, READ_CHUNK } from './all-followers';
import { ALL_STREAMS, WakeHub } from '../wake-hub';
import { EventRow, FilteredStatements, toStored } from './event-rows';
import { GroupCommit, toRows } from './group-commit';
import { migrate } from './schema';
import { WriterClient } from '../writer-client';
import { spawnWorker } from '../../common/spawn-worker';
import type { SqliteWriterData } from './writer-thread';
import { asStoreUnavailable } from '../sqlite-errors';

export class EventStoreFileLockedError extends Error {
  constructor(readonly path: string) {
    super(`the event store file ${path} is in use by another process; only one Runledger process may own it`);
    this.name = 'EventStoreFileLockedError';
  }
}

/** How long a trickle of appends gathers before the writer thread commits it (0.5 rather than 1 ms: docs/benchmarks.md). */
export const WRITER_WINDOW_MS = 0.5;

export interface SqliteOpenOptions {
  synchronous?: 'FULL' | 'NORMAL';
  /**
   * `inline` (the default): the group commit runs on the event loop over the one connection.
   * `thread`: a writer thread owns the write connection and its group commit, this thread reads
   * over its own (docs/design.md#the-sqlite-writer-thread). The server uses `thread`.
   */
  writer?: 'inline' | 'thread';
}

/** Where appends go: the group commit on this thread, or the writer thread. */
type Writer = { kind: 'inline'; commits: GroupCommit } | { kind: 'thread'; client: WriterClient };

/**
 * The embedded event store: one SQLite file in WAL mode, locked to this process. Appends go
 * through the group commit (group-commit.ts), here or on the writer thread; this class serves
 * reads and subscriptions, which a commit wakes (a wake-up carries no events: readers re-read from
 * their own position, or take the writer thread's latest commit when it holds their next event).
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  /** The file is locked to one process: there are no other instances to hear from. */
  readonly instances = null;
  private readonly signals = new WakeHub();
  private readonly writer: Writer;
  private readonly recent = new RecentEvents();
  /** Reads of one stream, from the known last event when it answers them (stream-heads.ts). */
  private readonly streams: StreamReads;
  private readonly allFollowers: AllFollowers;
  private readonly filtered: FilteredStatements;
  private closed = false;
  /** The file's newest position, unbounded: where reads may go once a dead writer thread may have committed more. */
  private readonly fileHead: Database.Statement<[], { position: number | null }>;
  /** Every read of `db` stops at the last commit this thread was told of (acknowledged-position.ts). */
  private readonly acknowledged: AcknowledgedPosition;
  private readonly allAfter: Database.Statement<[number, number, number], EventRow>;
  private readonly streamChunkAfter: Database.Statement<[string, number, number], EventRow>;
  private readonly allChunkAfter: Database.Statement<[number, number], EventRow>;

  private constructor(
    /** This thread's connection: every read, and the writes too when the writer is inline. */
    private readonly db: Database.Database,
    private readonly lock: Database.Database,
    thread: { file: string; synchronous: 'FULL' | 'NORMAL' } | null,
  ) {
    this.writer = thread
      ? {
          kind: 'thread',
          client: new WriterClient(
            () => spawnWorker(__dirname, 'writer-thread', { workerData: { ...thread, windowMs: WRITER_WINDOW_MS } satisfies SqliteWriterData }),
            'the SQLite writer thread',
            (appends) => this.committed(appends),
            () => this.lost(),
          ),
        }
      : { kind: 'inline', commits: new GroupCommit(db, (appends) => this.committed(appends)) };
    this.fileHead = db.prepare('SELECT max(position) AS position FROM events');
    this.acknowledged = new AcknowledgedPosition(this.fileHead.get()?.position ?? 0);
    this.filtered = new FilteredStatements(db);
    this.streams = new StreamReads(db, this.recent, this.acknowledged);
    this.allFollowers = new AllFollowers(this.filtered, this.signals, this.acknowledged, () => this.closed);
    this.allAfter = db.prepare('SELECT * FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?');
    // Subscriptions read on every wake-up, so their chunk size is a literal: SQLite 3.53 plans with
    // the value of a bound LIMIT and so re-prepares the statement on every call (~20 µs measured
    // here; an empty read with a literal LIMIT takes ~3 µs).
    this.streamChunkAfter = db.prepare(`SELECT * FROM events WHERE stream_id = ? AND revision > ? AND position <= ? ORDER BY revision LIMIT ${READ_CHUNK}`);
    this.allChunkAfter = db.prepare(`SELECT * FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ${READ_CHUNK}`);
  }

  static open(path: string, options: SqliteOpenOptions = {}): SqliteEventStore {
    const file = resolve(path);
    const synchronous = options.synchronous ?? 'FULL';
    const locked = (name: string) => new EventStoreFileLockedError(name);
    mkdirSync(dirname(file), { recursive: true });
    const lock = lockCompanionFile(file, locked);
    let db: Database.Database | undefined;
    try {
      // Inline, the file's own exclusive mode locks it as well (against builds without the lock file).
      db = options.writer === 'thread' ? openShared(file, locked) : openOwnedSqliteFile(file, synchronous, locked);
      migrate(db);
      return new SqliteEventStore(db, lock, options.writer === 'thread' ? { file, synchronous } : null);
    } catch (error) {
      db?.close();
      lock.close();
      throw error;
    }
  }

  /** Told the size of each group commit (metrics). */
  set onCommit(observer: ((appends: number, events: number) => void) | null) {
    if (this.writer.kind === 'inline') this.writer.commits.onCommit = observer;
    else this.writer.client.onCommit = observer;
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (this.writer.kind === 'inline') return this.writer.commits.append(streamId, events, expected);
    try {
      return this.writer.client.append(streamId, toRows(events), expected);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Fault tests: runs a pragma on the write connection (`max_page_count`, `query_only`), wherever it is. */
  writerPragma(sql: string): void {
    if (this.writer.kind === 'inline') this.db.pragma(sql);
    else this.writer.client.pragma(sql);
  }

  /** Fault tests: the writer thread ends after its next commit, before acknowledging it. */
  crashWriterAfterNextCommit(): void {
    if (this.writer.kind !== 'thread') throw new Error('the inline writer has no thread to end');
    this.writer.client.crashAfterNextCommit();
  }

  /** A commit, here or on the writer thread: its followers get the events from it, then everyone is woken. */
  private committed(appends: readonly CommittedAppend[]): void {
    for (const append of appends) this.acknowledged.raise(append.result.position);
    // Built once when $all is followed, and shared with the streams' followers.
    const events = this.allFollowers.committed(appends);
    // Every stream, followed or not: a client that attaches after its 201 reads the stream from
    // its first event, which is still here while the run is young.
    this.recent.recordAppends(appends, () => true, events ? (_, index) => events[index] : undefined);
    for (let index = 0; index < appends.length; index++)
      this.streams.committed(appends[index], events ? events[index][events[index].length - 1] : lastEventOf(appends[index]));
    this.signals.wake([...new Set(appends.map((a) => a.streamId)), ALL_STREAMS]);
  }

  /** The writer thread ended: it may have committed what this process was never told of. */
  private lost(): void {
    this.allFollowers.lost();
    this.streams.forget();
    // Whatever it committed is in the file, answered or not (its appends fail as unknown, and a
    // retry finds them by their event ids): reads see it from now on. A file that cannot be read
    // right now leaves the bound where it is (the next commit moves it past), rather than throw
    // from the thread's exit handler before its appends are refused.
    try {
      this.acknowledged.raise(this.fileHead.get()?.position ?? 0);
    } catch {
      // Reads fail on their own while the file cannot be read.
    }
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    return this.reading(() => this.streams.read(streamId, options));
  }

  async streamHead(streamId: string): Promise<number | null> {
    this.assertOpen();
    return this.reading(() => this.streams.head(streamId));
  }

  async lastEvent(streamId: string): Promise<StoredEvent | null> {
    this.assertOpen();
    return this.reading(() => this.streams.last(streamId));
  }

  async streamTenant(streamId: string): Promise<string | null> {
    this.assertOpen();
    return this.reading(() => this.streams.tenant(streamId));
  }

  async readAll(options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const { after = 0, limit = -1, types, filter } = options;
    const wanted = filter ? { ...filter, types: filter.types ?? types } : types ? { types } : null;
    const bound = this.acknowledged.value;
    const rows = this.reading(() => (wanted ? this.filtered.get(wanted, '?').all(after, bound, limit) : this.allAfter.all(after, bound, limit)));
    return rows.map(toStored);
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    return this.acknowledged.value;
  }

  async countAll({ after = 0, limit, filter = {} }: CountOptions): Promise<number> {
    this.assertOpen();
    return this.reading(() => this.filtered.count(filter).get(after, this.acknowledged.value, limit)?.n ?? 0);
  }

  subscribeToStream(streamId: string, options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    return this.follow(
      streamId,
      (after) => this.recent.after(streamId, after ?? -1) ?? this.streamChunkAfter.all(streamId, after ?? -1, this.acknowledged.value).map(toStored),
      (event) => event.revision,
      options,
    );
  }

  subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    return this.follow(
      ALL_STREAMS,
      (after) => this.allChunkAfter.all(after ?? 0, this.acknowledged.value).map(toStored),
      (event) => event.position,
      options,
    );
  }

  subscribeToAllFiltered(options: FilteredSubscribeOptions): AsyncIterable<AllSubscriptionItem> {
    return this.allFollowers.follow(options);
  }

  private async *follow(
    channel: string | typeof ALL_STREAMS,
    readAfter: (after: number | undefined) => StoredEvent[],
    cursorOf: (event: StoredEvent) => number,
    { after, signal }: SubscribeOptions,
  ): AsyncGenerator<StoredEvent> {
    let cursor = after;
    const unfollow = typeof channel === 'string' ? this.signals.follow(channel) : undefined;
    try {
      while (!this.closed && !signal?.aborted) {
        const wait = this.signals.wait(channel, signal);
        try {
          const events = this.reading(() => readAfter(cursor));
          for (const event of events) {
            yield event;
            cursor = cursorOf(event);
            if (signal?.aborted) return;
          }
          // A full chunk may have more behind it. A short one held everything committed when it was
          // read, and `wait`, registered before that read, fires on any later commit — so no
          // re-read that would come back empty.
          if (events.length < READ_CHUNK) await wait.promise;
        } finally {
          wait.cancel();
        }
      }
    } finally {
      unfollow?.();
    }
  }

  private reading<T>(read: () => T): T {
    try {
      return read();
    } catch (error) {
      throw asStoreUnavailable(error);
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('event store is closed');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.writer.kind === 'inline') this.writer.commits.flush();
    else await this.writer.client.close();
    this.signals.wakeEveryone();
    this.db.close();
    this.lock.close();
  }
}
