import Database from 'better-sqlite3';
import { openOwnedSqliteFile } from '../../common/owned-sqlite-file';
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
import { ALL_STREAMS, WakeHub } from '../wake-hub';
import { EventRow, FilteredStatements, toStored } from './event-rows';
import { GroupCommit } from './group-commit';
import { migrate } from './schema';
import { asStoreUnavailable } from '../sqlite-errors';

export class EventStoreFileLockedError extends Error {
  constructor(readonly path: string) {
    super(`the event store file ${path} is in use by another process; only one Runledger process may own it`);
    this.name = 'EventStoreFileLockedError';
  }
}

const READ_CHUNK = 1000;

/**
 * The embedded event store: one SQLite file in WAL mode, locked to this process. Appends go
 * through the group commit (group-commit.ts); this class serves reads and subscriptions, which a
 * commit wakes (a wake-up carries no events: readers re-read from their own position).
 */
export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite' as const;
  /** The file is locked to one process: there are no other instances to hear from. */
  readonly instances = null;
  private readonly signals = new WakeHub();
  private readonly commits: GroupCommit;
  private readonly filtered: FilteredStatements;
  private closed = false;
  private readonly lastPosition: Database.Statement<[], { position: number | null }>;
  private readonly streamAfter: Database.Statement<[string, number, number], EventRow>;
  private readonly streamAllAfter: Database.Statement<[string, number], EventRow>;
  private readonly allAfter: Database.Statement<[number, number], EventRow>;
  private readonly tenantOf: Database.Statement<[string], { tenant_id: string | null }>;
  private readonly streamChunkAfter: Database.Statement<[string, number], EventRow>;
  private readonly allChunkAfter: Database.Statement<[number], EventRow>;

  private constructor(private readonly db: Database.Database) {
    this.commits = new GroupCommit(db, (streams) => this.signals.wake([...streams, ALL_STREAMS]));
    this.filtered = new FilteredStatements(db);
    this.lastPosition = db.prepare('SELECT max(position) AS position FROM events');
    // Without a LIMIT to bind: SQLite re-prepares a statement whose bound LIMIT changes the plan.
    this.streamAllAfter = db.prepare('SELECT * FROM events WHERE stream_id = ? AND revision > ? ORDER BY revision');
    this.streamAfter = db.prepare('SELECT * FROM events WHERE stream_id = ? AND revision > ? ORDER BY revision LIMIT ?');
    this.tenantOf = db.prepare('SELECT tenant_id FROM events WHERE stream_id = ? ORDER BY revision LIMIT 1');
    this.allAfter = db.prepare('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?');
    // Subscriptions read on every wake-up, so their chunk size is a literal: SQLite 3.53 plans with
    // the value of a bound LIMIT and so re-prepares the statement on every call (~20 µs measured
    // here; an empty read with a literal LIMIT takes ~3 µs).
    this.streamChunkAfter = db.prepare(`SELECT * FROM events WHERE stream_id = ? AND revision > ? ORDER BY revision LIMIT ${READ_CHUNK}`);
    this.allChunkAfter = db.prepare(`SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ${READ_CHUNK}`);
  }

  static open(path: string, options: { synchronous?: 'FULL' | 'NORMAL' } = {}): SqliteEventStore {
    const db = openOwnedSqliteFile(path, options.synchronous ?? 'FULL', (file) => new EventStoreFileLockedError(file));
    try {
      migrate(db);
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteEventStore(db);
  }

  /** Told the size of each group commit (metrics). */
  set onCommit(observer: ((appends: number, events: number) => void) | null) {
    this.commits.onCommit = observer;
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return this.commits.append(streamId, events, expected);
  }

  async readStream(streamId: string, options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const { after = -1, limit } = options;
    return this.reading(() => (limit === undefined ? this.streamAllAfter.all(streamId, after) : this.streamAfter.all(streamId, after, limit)).map(toStored));
  }

  async streamHead(streamId: string): Promise<number | null> {
    this.assertOpen();
    return this.reading(() => this.commits.head(streamId));
  }

  async streamTenant(streamId: string): Promise<string | null> {
    this.assertOpen();
    return this.reading(() => this.tenantOf.get(streamId)?.tenant_id ?? null);
  }

  async readAll(options: ReadOptions = {}): Promise<StoredEvent[]> {
    this.assertOpen();
    const { after = 0, limit = -1, types, filter } = options;
    const wanted = filter ? { ...filter, types: filter.types ?? types } : types ? { types } : null;
    const rows = this.reading(() => (wanted ? this.filtered.get(wanted, '?').all(after, limit) : this.allAfter.all(after, limit)));
    return rows.map(toStored);
  }

  async headPosition(): Promise<number> {
    this.assertOpen();
    return this.reading(() => this.lastPosition.get()?.position ?? 0);
  }

  async countAll({ after = 0, limit, filter = {} }: CountOptions): Promise<number> {
    this.assertOpen();
    return this.reading(() => this.filtered.count(filter).get(after, limit)?.n ?? 0);
  }

  subscribeToStream(streamId: string, options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    return this.follow(
      streamId,
      (after) => this.streamChunkAfter.all(streamId, after ?? -1),
      (event) => event.revision,
      options,
    );
  }

  subscribeToAll(options: SubscribeOptions = {}): AsyncIterable<StoredEvent> {
    return this.follow(
      ALL_STREAMS,
      (after) => this.allChunkAfter.all(after ?? 0),
      (event) => event.position,
      options,
    );
  }

  /**
   * Filtered in SQL. The matching rows and the log's last position are read in one snapshot, so
   * after a short chunk everything up to that position has been seen: that is the checkpoint.
   */
  async *subscribeToAllFiltered({ filter, after, signal }: FilteredSubscribeOptions): AsyncGenerator<AllSubscriptionItem> {
    const chunk = this.filtered.get(filter, String(READ_CHUNK));
    const readChunk = this.db.transaction((from: number) => ({
      rows: chunk.all(from),
      head: this.lastPosition.get()?.position ?? 0,
    }));
    let cursor = after ?? 0;
    while (!this.closed && !signal?.aborted) {
      const wait = this.signals.wait(ALL_STREAMS, signal);
      try {
        const { rows, head } = this.reading(() => readChunk(cursor));
        for (const row of rows) {
          yield { kind: 'event', event: toStored(row) };
          cursor = row.position;
          if (signal?.aborted) return;
        }
        if (rows.length === READ_CHUNK) continue;
        if (head > cursor) {
          cursor = head;
          yield { kind: 'checkpoint', position: head };
        }
        await wait.promise;
      } finally {
        wait.cancel();
      }
    }
  }

  private async *follow(
    channel: string | typeof ALL_STREAMS,
    readAfter: (after: number | undefined) => EventRow[],
    cursorOf: (event: StoredEvent) => number,
    { after, signal }: SubscribeOptions,
  ): AsyncGenerator<StoredEvent> {
    let cursor = after;
    while (!this.closed && !signal?.aborted) {
      const wait = this.signals.wait(channel, signal);
      try {
        const rows = this.reading(() => readAfter(cursor));
        for (const row of rows) {
          const event = toStored(row);
          yield event;
          cursor = cursorOf(event);
          if (signal?.aborted) return;
        }
        // A full chunk may have more behind it. A short one held everything committed when it was
        // read, and `wait`, registered before that read, fires on any later commit — so no
        // re-read that would come back empty.
        if (rows.length < READ_CHUNK) await wait.promise;
      } finally {
        wait.cancel();
      }
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
    this.commits.flush();
    this.closed = true;
    this.signals.wakeEveryone();
    this.db.close();
  }
}
