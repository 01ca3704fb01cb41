import type Database from 'better-sqlite3';
import type { ReadOptions, StoredEvent } from '../event-store';
import { EventRow, toStored } from './event-rows';
import { StreamHeads, StreamTenants } from './stream-heads';
import type { CommittedAppend, RecentEvents } from '../recent-events';
import type { AcknowledgedPosition } from './acknowledged-position';

/** Distinct LIMITs prepared as literals: a bound LIMIT costs a re-prepare per read (~13 µs measured). */
const LITERAL_LIMITS = 32;

/**
 * Reads of one stream on the event loop's connection, answered from what this process committed
 * (recent-events.ts), or from the stream's known last event or tenant (stream-heads.ts), when
 * they answer it; from the file otherwise, up to the acknowledged position (so the three always
 * agree: acknowledged-position.ts). Errors are SQLite's: the store translates them.
 */
export class StreamReads {
  /** Each recent stream's last event: offered every commit's (`committed`) and every read's. */
  private readonly heads = new StreamHeads();
  /** Each recent stream's tenant: its first event's, offered by the commit that wrote it and by reads. */
  private readonly tenants = new StreamTenants();
  private readonly headOf: Database.Statement<[string, number], { revision: number }>;
  private readonly lastOf: Database.Statement<[string, number], EventRow>;
  private readonly tenantOf: Database.Statement<[string, number], { tenant_id: string | null }>;
  /** Without a LIMIT to bind: SQLite re-prepares a statement whose bound LIMIT changes the plan. */
  private readonly allAfter: Database.Statement<[string, number, number], EventRow>;
  private readonly boundAfter: Database.Statement<[string, number, number, number], EventRow>;
  /** By their LIMIT as a literal, for the few limits callers use (replay pages, SSE catch-up, "the first event"). */
  private readonly upTo = new Map<number, Database.Statement<[string, number, number], EventRow>>();

  constructor(
    private readonly db: Database.Database,
    /** Every stream's newest events as this process committed them (the store records them). */
    private readonly recent: RecentEvents,
    /** Where every read of the file stops: the last commit this thread was told of. */
    private readonly acknowledged: AcknowledgedPosition,
  ) {
    this.headOf = db.prepare('SELECT revision FROM events WHERE stream_id = ? AND position <= ? ORDER BY revision DESC LIMIT 1');
    this.lastOf = db.prepare('SELECT * FROM events WHERE stream_id = ? AND position <= ? ORDER BY revision DESC LIMIT 1');
    this.tenantOf = db.prepare('SELECT tenant_id FROM events WHERE stream_id = ? AND position <= ? ORDER BY revision LIMIT 1');
    this.allAfter = db.prepare('SELECT * FROM events WHERE stream_id = ? AND revision > ? AND position <= ? ORDER BY revision');
    this.boundAfter = db.prepare('SELECT * FROM events WHERE stream_id = ? AND revision > ? AND position <= ? ORDER BY revision LIMIT ?');
  }

  /**
   * One commit's append: `last` is its last event. A stream's tenant is its first event's; the
   * column sits after `data` in the row, so reading it walks a large `run.queued`'s overflow pages
   * (~150 µs for a 60 kB config, per attach).
   */
  committed(append: CommittedAppend, last: StoredEvent): void {
    this.heads.offer(last);
    if (append.result.nextRevision === append.rows.length - 1) this.tenants.remember(append.streamId, append.rows[0].tenantId);
  }

  /** The writer thread died: it may have committed what this process was never told of. */
  forget(): void {
    this.heads.clear();
    this.recent.clear();
  }

  read(streamId: string, { after = -1, limit }: ReadOptions): StoredEvent[] {
    const kept = this.kept(streamId, after, limit);
    if (kept) return kept;
    const tail = this.heads.tail(streamId, after, limit);
    if (tail) return tail;
    const events = (limit === undefined ? this.allAfter.all(streamId, after, this.acknowledged.value) : this.limited(streamId, after, limit)).map(toStored);
    // A read that reached the stream's end ends with its head.
    if (events.length > 0 && (limit === undefined || events.length < limit)) this.heads.offer(events[events.length - 1]);
    return events;
  }

  head(streamId: string): number | null {
    return this.heads.get(streamId)?.revision ?? this.headOf.get(streamId, this.acknowledged.value)?.revision ?? null;
  }

  /**
   * The stream's events from what this process committed: every commit is recorded before its
   * append is answered and before any read can see it, so a kept run that holds the next revision
   * asked for runs to the stream's head as every read sees it.
   */
  private kept(streamId: string, after: number, limit: number | undefined): StoredEvent[] | null {
    if (limit !== undefined && !(Number.isSafeInteger(limit) && limit >= 1)) return null;
    return this.recent.after(streamId, after, limit);
  }

  last(streamId: string): StoredEvent | null {
    const known = this.heads.get(streamId);
    if (known) return known;
    const row = this.lastOf.get(streamId, this.acknowledged.value);
    if (!row) return null;
    const last = toStored(row);
    this.heads.offer(last);
    return last;
  }

  tenant(streamId: string): string | null {
    const known = this.tenants.get(streamId);
    if (known !== undefined) return known;
    const tenant = this.tenantOf.get(streamId, this.acknowledged.value)?.tenant_id ?? null;
    if (tenant !== null) this.tenants.remember(streamId, tenant);
    return tenant;
  }

  private limited(streamId: string, after: number, limit: number): EventRow[] {
    let statement = this.upTo.get(limit);
    if (!statement && Number.isSafeInteger(limit) && limit >= 0 && this.upTo.size < LITERAL_LIMITS) {
      statement = this.db.prepare(`SELECT * FROM events WHERE stream_id = ? AND revision > ? AND position <= ? ORDER BY revision LIMIT ${limit}`);
      this.upTo.set(limit, statement);
    }
    const bound = this.acknowledged.value;
    return statement ? statement.all(streamId, after, bound) : this.boundAfter.all(streamId, after, bound, limit);
  }
}
