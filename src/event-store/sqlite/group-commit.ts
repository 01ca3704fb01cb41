import type Database from 'better-sqlite3';
import { nowIso } from '../../common/clock';
import { newId } from '../../common/ids';
import { AppendResult, EncodedEvent, ExpectedRevision, revisionMatches, NewEvent, WrongExpectedRevisionError } from '../event-store';
import type { CommittedAppend } from '../recent-events';
import { asStoreUnavailable } from '../sqlite-errors';
import { jsonOf, keptOrFreshJson } from '../../common/json-text';

/** The writer thread gets these. */
export type EventRowIn = EncodedEvent;

export interface PendingAppend {
  streamId: string;
  expected: ExpectedRevision;
  rows: EventRowIn[];
  /** Called inside the commit that settles the append, before the next one starts. */
  resolve(result: AppendResult): void;
  reject(error: Error): void;
}

/**
 * Encodes events for the table, choosing the ids and the clock's instant once, so that a retry
 * or a copy handed to another thread carries the same ones. Throws on a payload JSON cannot
 * encode (a BigInt, a cycle): that append fails alone.
 */
export function toRows(events: NewEvent[]): EventRowIn[] {
  if (events.length === 0) throw new Error('append needs at least one event');
  let now: string | undefined;
  return events.map((e) => ({
    id: e.id ?? newId(),
    tenantId: e.metadata.tenantId,
    schemaVersion: e.metadata.schemaVersion,
    type: e.type,
    data: jsonOf(e.data),
    metadata: keptOrFreshJson(e.metadata),
    occurredAt: e.occurredAt ?? (now ??= nowIso()),
  }));
}

/**
 * Events one transaction takes before the rest wait for the next one. better-sqlite3 commits on
 * the event loop, so this bounds how long one commit holds it: requests, probes and SSE writes of
 * every tenant run between two commits, however much one execution streams.
 */
export const MAX_EVENTS_PER_COMMIT = 512;

/**
 * The SQLite write path (ENGINEERING rule 7): every append requested during one event-loop turn
 * joins one transaction at setImmediate, each expected revision checked inside it, so one fsync
 * carries many appends and a conflict fails only its own append. A transaction that fails rolls
 * back whole: every append of it is refused, as `StoreUnavailableError` when SQLite says so.
 *
 * One transaction takes up to MAX_EVENTS_PER_COMMIT events (an append is never split; one larger
 * than that goes alone), and what is left waits for the next turn, after the I/O that queued
 * meanwhile. Appends are taken in the order they came, except that one which does not fit lets
 * smaller ones of other streams past; a stream's appends never pass each other, and what waited
 * goes first next time. A runner has one append in flight per execution, so a small execution's
 * append waits for at most one commit, however many events the others have queued.
 */
export class GroupCommit {
  private queue: PendingAppend[] = [];
  private scheduled: 'now' | 'window' | null = null;
  private windowTimer: NodeJS.Timeout | null = null;
  private queuedEvents = 0;
  /** performance.now() when the last commit ended. */
  private lastCommitAt = -Infinity;
  private readonly headOf: Database.Statement<[string], { revision: number }>;
  private readonly insert: Database.Statement<unknown[]>;
  /** Told the size of each group commit (metrics); set by whoever cares. */
  onCommit: ((appends: number, events: number) => void) | null = null;

  constructor(
    private readonly db: Database.Database,
    /** Called after each commit with the appends it stored. */
    private readonly committed: (appends: CommittedAppend[]) => void,
    /** The shortest time from one commit's end to the next one's start (unless a full commit waits); 0: none. */
    private readonly windowMs = 0,
    /**
     * Blocks this thread for that long (the writer thread's Atomics.wait), instead of arming a
     * timer: never on the event loop. See schedule.
     */
    private readonly sleep: ((ms: number) => void) | null = null,
  ) {
    this.headOf = db.prepare('SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1');
    this.insert = db.prepare(
      `INSERT INTO events (stream_id, revision, type, data, metadata, occurred_at, event_id, tenant_id, schema_version)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** The stream's last revision, or null (reads share the statement the write path needs anyway). */
  head(streamId: string): number | null {
    return this.headOf.get(streamId)?.revision ?? null;
  }

  append(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    let rows: EventRowIn[];
    try {
      rows = toRows(events);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => this.enqueue({ streamId, expected, rows, resolve, reject }));
  }

  /** Queues an append already encoded; its callbacks are called from the commit that settles it. */
  enqueue(pending: PendingAppend): void {
    this.queue.push(pending);
    this.queuedEvents += pending.rows.length;
    // At most one commit per window: an append after a quiet spell goes at once, a trickle
    // arriving right behind a commit waits out the rest of the window and shares the next one.
    const rest = this.windowMs - (performance.now() - this.lastCommitAt);
    this.schedule(this.queuedEvents >= MAX_EVENTS_PER_COMMIT ? 0 : Math.max(0, rest));
  }

  /** Commits everything queued now, in as many transactions as it takes (close calls it, so nothing queued is dropped). */
  flush(): void {
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = null;
    if (this.scheduled === 'window') this.scheduled = null;
    while (this.queue.length > 0) this.commitNext();
  }

  /** 0 commits at setImmediate, after the I/O of this loop iteration; more waits that long first. */
  private schedule(windowMs: number): void {
    if (this.scheduled === 'now' || (this.scheduled === 'window' && windowMs > 0)) return;
    if (this.windowTimer) clearTimeout(this.windowTimer);
    this.windowTimer = null;
    const run = (): void => {
      this.scheduled = null;
      this.windowTimer = null;
      this.commitNext();
      this.lastCommitAt = performance.now();
      // Scheduled from the check phase, this runs in the next loop iteration, after its I/O:
      // what queued during a commit goes at once, it has waited long enough.
      if (this.queue.length > 0) this.schedule(0);
    };
    if (windowMs > 0 && this.sleep) {
      // A thread idle in its event loop is woken by every message posted to it, and each wake-up
      // cost the poster ~13 µs against ~3 µs to a thread asleep (measured on Node 20, 2 cores): at
      // ten appends per window that was a tenth of the event loop. Asleep, the appends posted
      // meanwhile queue up unread; the port's handler, which called this, reads them all before
      // the commit at setImmediate.
      this.sleep(windowMs);
      windowMs = 0;
    }
    if (windowMs > 0) {
      this.scheduled = 'window';
      this.windowTimer = setTimeout(run, windowMs);
    } else {
      this.scheduled = 'now';
      setImmediate(run);
    }
  }

  /** The next transaction's appends: in order up to the bound, each stream's in its own order. */
  private take(): PendingAppend[] {
    let events = 0;
    const batch: PendingAppend[] = [];
    const rest: PendingAppend[] = [];
    const held = new Set<string>();
    for (const pending of this.queue) {
      const fits = batch.length === 0 || events + pending.rows.length <= MAX_EVENTS_PER_COMMIT;
      if (fits && !held.has(pending.streamId)) {
        batch.push(pending);
        events += pending.rows.length;
      } else {
        held.add(pending.streamId);
        rest.push(pending);
      }
    }
    this.queue = rest;
    this.queuedEvents -= events;
    return batch;
  }

  private commitNext(): void {
    const batch = this.take();
    if (batch.length === 0) return;
    const outcomes: (AppendResult | Error)[] = [];
    try {
      this.db.transaction(() => {
        for (const pending of batch) outcomes.push(this.write(pending));
      })();
    } catch (error) {
      // The transaction rolled back: none of the batch is stored.
      const failure = asStoreUnavailable(error);
      for (const pending of batch) pending.reject(failure as Error);
      return;
    }
    let events = 0;
    const stored: CommittedAppend[] = [];
    batch.forEach((pending, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) pending.reject(outcome);
      else {
        events += pending.rows.length;
        stored.push({ streamId: pending.streamId, rows: pending.rows, result: outcome });
        pending.resolve(outcome);
      }
    });
    if (stored.length > 0) this.committed(stored);
    this.onCommit?.(batch.length, events);
  }

  private write(pending: PendingAppend): AppendResult | Error {
    const head = this.head(pending.streamId);
    if (!revisionMatches(pending.expected, head)) {
      return new WrongExpectedRevisionError(pending.streamId, pending.expected, head);
    }
    let revision = head ?? -1;
    let position = 0;
    for (const row of pending.rows) {
      revision += 1;
      const info = this.insert.run(pending.streamId, revision, row.type, row.data, row.metadata, row.occurredAt, row.id, row.tenantId, row.schemaVersion);
      position = Number(info.lastInsertRowid);
    }
    return { nextRevision: revision, position };
  }
}
