import type { Pool, PoolClient } from 'pg';
import { AppendResult, EncodedEvent, ExpectedRevision, revisionMatches, StoreUnavailableError, WrongExpectedRevisionError } from '../event-store';
import { RETRY_TRANSACTION, asStoreUnavailable, connectionIsBroken, isUnavailable, sqlState } from './postgres-errors';
import { MAX_EVENTS_PER_TRANSACTION, firstPositionOf } from './position';
import type { CommittedAppend } from '../recent-events';
import { EVENTS_TABLE } from './schema';

export type EventRow = EncodedEvent;

export interface PendingAppend {
  streamId: string;
  expected: ExpectedRevision;
  rows: EventRow[];
  bytes: number;
  resolve(result: AppendResult): void;
  reject(error: Error): void;
}

/** A batch's payload stays below this unless one append alone is larger. */
const MAX_BATCH_BYTES = 16 * 1024 * 1024;
/** Runs of one batch that the unique guard (or a serialization failure) may cause before it is refused. */
const MAX_ATTEMPTS = 20;

// The snapshot is taken as this statement starts, before pg_current_xact_id() gives the
// transaction its id. So every transaction whose events this one sees ended before it got its id,
// and has a smaller one: positions follow revisions within every stream.
const HEADS = `SELECT pg_current_xact_id()::text AS xid,
  ARRAY(SELECT (SELECT revision FROM ${EVENTS_TABLE} e WHERE e.stream_id = s.id ORDER BY revision DESC LIMIT 1)
        FROM unnest($1::text[]) WITH ORDINALITY AS s(id, n) ORDER BY s.n) AS heads`;

// Data and metadata go as one JSON array each, not as json[]: an array literal escapes every quote
// of every document, which PostgreSQL then parses back, and for a run.queued carrying a 30 kB config
// that made a 50-row commit take ~190 ms (33 ms as JSON arrays, measured on one cluster). A json
// element keeps its text exactly as written (schema.ts). Rows go in in the order of `columns`.
const INSERT = `INSERT INTO ${EVENTS_TABLE}
  (position, stream_id, revision, event_id, tenant_id, schema_version, type, data, metadata, occurred_at)
  SELECT r.position, r.stream_id, r.revision, r.event_id, r.tenant_id, r.schema_version, r.type, d.value, m.value, r.occurred_at
  FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::uuid[], $5::text[], $6::integer[], $7::text[], $10::text[])
         WITH ORDINALITY AS r(position, stream_id, revision, event_id, tenant_id, schema_version, type, occurred_at, n)
  JOIN json_array_elements($8::json) WITH ORDINALITY AS d(value, n) USING (n)
  JOIN json_array_elements($9::json) WITH ORDINALITY AS m(value, n) USING (n)
  ORDER BY r.n`;

interface Insert {
  position: number;
  streamId: string;
  revision: number;
  row: EventRow;
}

/**
 * Group commit (ENGINEERING rule 7): every append requested while the previous transaction was in
 * flight joins the next one, each expected revision checked inside it against the stream heads
 * read in that transaction's snapshot and the appends before it in the batch, so a conflict fails
 * only its own append. The unique (stream_id, revision) is the guard against other writers: when
 * another transaction took a revision first, the whole batch is rolled back and run again — its
 * snapshot now shows the winner, so only the loser fails, as a WrongExpectedRevisionError.
 * All of it happens on one checked-out connection that an error does not throw away.
 */
export class GroupCommit {
  private queue: PendingAppend[] = [];
  private scheduled = false;
  private running: Promise<void> | undefined;

  constructor(
    private readonly pool: Pool,
    private readonly xidBase: bigint,
    private readonly committed: (appends: CommittedAppend[], lastPosition: number) => void,
  ) {}

  enqueue(pending: PendingAppend): void {
    this.queue.push(pending);
    this.schedule();
  }

  /** Resolves once everything queued so far has been settled. */
  async drain(): Promise<void> {
    while (this.running || this.queue.length > 0) {
      if (!this.running) this.running = this.run();
      await this.running;
    }
  }

  private schedule(): void {
    if (this.scheduled || this.running) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.running) this.running = this.run();
    });
  }

  private async run(): Promise<void> {
    try {
      const batch = this.take();
      if (batch.length > 0) await this.commit(batch);
    } finally {
      this.running = undefined;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private take(): PendingAppend[] {
    let events = 0;
    let bytes = 0;
    let count = 0;
    for (const pending of this.queue) {
      if (count > 0 && (events + pending.rows.length > MAX_EVENTS_PER_TRANSACTION || bytes + pending.bytes > MAX_BATCH_BYTES)) break;
      events += pending.rows.length;
      bytes += pending.bytes;
      count += 1;
    }
    return this.queue.splice(0, count);
  }

  private async commit(batch: PendingAppend[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const result = await this.tryOnce(batch);
      if ('outcomes' in result) return this.settle(batch, result.outcomes);
      const state = sqlState(result.error);
      if (state && RETRY_TRANSACTION.has(state)) {
        if (attempt < MAX_ATTEMPTS) continue;
      } else if (!isUnavailable(result.error) && batch.length > 1) {
        // Something in one append that PostgreSQL refuses: find it by committing each alone.
        for (const pending of batch) await this.commit([pending]);
        return;
      }
      return this.fail(batch, result.error);
    }
  }

  private async tryOnce(batch: PendingAppend[]): Promise<{ outcomes: (AppendResult | Error)[] } | { error: unknown }> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      return { error };
    }
    let broken: Error | undefined;
    // A checked-out client reports a dropped connection as an 'error' event too; the query in
    // flight rejects with it, which is what is handled here.
    const onError = (error: Error): void => void (broken ??= error);
    client.on('error', onError);
    try {
      return { outcomes: await this.attempt(client, batch) };
    } catch (error) {
      if (connectionIsBroken(error)) broken ??= error as Error;
      return { error };
    } finally {
      client.off('error', onError);
      client.release(broken);
    }
  }

  /**
   * Two round trips: BEGIN goes out with the heads' read, and the INSERT with its COMMIT. The
   * driver sends a queued statement as soon as the one before it is answered, in the same socket
   * callback, so a busy event loop delays a commit twice, not four times. A failed INSERT leaves
   * the transaction aborted, and the COMMIT behind it then rolls it back.
   */
  private async attempt(client: PoolClient, batch: PendingAppend[]): Promise<(AppendResult | Error)[]> {
    const streams = [...new Set(batch.map((pending) => pending.streamId))];
    const begun = client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    const read = client.query<{ xid: string; heads: (string | null)[] }>({ name: 'runledger_heads', text: HEADS, values: [streams] });
    try {
      const [, { rows }] = await Promise.all([begun, read]);
      const heads = new Map(streams.map((stream, i) => [stream, rows[0].heads[i] === null ? null : Number(rows[0].heads[i])]));
      let position = firstPositionOf(rows[0].xid, this.xidBase);
      const inserts: Insert[] = [];
      const outcomes = batch.map((pending): AppendResult | Error => {
        const head = heads.get(pending.streamId) ?? null;
        if (!revisionMatches(pending.expected, head)) return new WrongExpectedRevisionError(pending.streamId, pending.expected, head);
        let revision = head ?? -1;
        for (const row of pending.rows) inserts.push({ position: position++, streamId: pending.streamId, revision: ++revision, row });
        heads.set(pending.streamId, revision);
        return { nextRevision: revision, position: position - 1 };
      });
      if (inserts.length > 0) {
        await Promise.all([client.query({ name: 'runledger_insert', text: INSERT, values: columns(inserts) }), client.query('COMMIT')]);
      } else {
        await client.query('ROLLBACK');
      }
      return outcomes;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  private settle(batch: PendingAppend[], outcomes: (AppendResult | Error)[]): void {
    const appended: CommittedAppend[] = [];
    let last = 0;
    batch.forEach((pending, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) return pending.reject(outcome);
      appended.push({ streamId: pending.streamId, rows: pending.rows, result: outcome });
      last = Math.max(last, outcome.position);
      pending.resolve(outcome);
    });
    if (appended.length > 0) this.committed(appended, last);
  }

  private fail(batch: PendingAppend[], error: unknown): void {
    const state = sqlState(error);
    const failure =
      state && RETRY_TRANSACTION.has(state)
        ? new StoreUnavailableError(`PostgreSQL: ${MAX_ATTEMPTS} attempts of one group commit all lost a race (${state}); try again`, error)
        : asStoreUnavailable(error, `an append to ${batch.map((pending) => pending.streamId).join(', ')}`);
    for (const pending of batch) pending.reject(failure as Error);
  }
}

/**
 * The INSERT's column arrays, rows ordered by (stream, revision): every writer takes the unique
 * index's entries in the same order, so two transactions never wait on each other in a cycle.
 * Positions keep the request order.
 */
function columns(inserts: Insert[]): unknown[] {
  const sorted = [...inserts].sort((a, b) => (a.streamId < b.streamId ? -1 : a.streamId > b.streamId ? 1 : a.revision - b.revision));
  return [
    sorted.map((i) => i.position),
    sorted.map((i) => i.streamId),
    sorted.map((i) => i.revision),
    sorted.map((i) => i.row.id),
    sorted.map((i) => i.row.tenantId),
    sorted.map((i) => i.row.schemaVersion),
    sorted.map((i) => i.row.type),
    `[${sorted.map((i) => i.row.data).join(',')}]`,
    `[${sorted.map((i) => i.row.metadata).join(',')}]`,
    sorted.map((i) => i.row.occurredAt),
  ];
}
