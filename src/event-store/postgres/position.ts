/**
 * Global positions on PostgreSQL, derived from the order in which readers can see events.
 *
 * A bigserial is handed out when a row is inserted, but rows become visible when their transaction
 * commits: with concurrent writers, position 11 can be visible while 10 is still in flight, and a
 * reader that moved its cursor to 11 never sees 10. So a position here is the writing
 * transaction's id (`xid8`, counted from the store's base — the id of the transaction that created
 * the table) and the event's index within that transaction, packed into one safe integer:
 *
 *     position = (xid − base) × 2^13 + index        index < 2^13 = 8,192 events per transaction
 *
 * Readers read only below the oldest transaction still in flight anywhere in the cluster
 * (`pg_snapshot_xmin(pg_current_snapshot())`): every transaction older than that has ended, and
 * every later one gets a larger id, so everything below that frontier is final and every event
 * committed later lands above it. A cursor over positions is then a cursor over (transaction id,
 * index), and positions only grow in the order readers see events.
 *
 * Bounds: positions stay below 2^53 while xid − base < 2^40 ≈ 1.1 × 10^12. Every transaction that
 * writes anything, in any database of the cluster, takes an id: at 1,000 writing transactions a
 * second that lasts 34 years, at 10,000 a second 3.5 years. An append beyond it fails with
 * PositionSpaceExhaustedError rather than wrapping. One transaction holds at most 8,192 events:
 * group commit splits larger batches over several transactions, and a single append of more events
 * than that is refused.
 */
export const INDEX_BITS = 13;
export const MAX_EVENTS_PER_TRANSACTION = 2 ** INDEX_BITS;
/** Transactions a store can number (since its base) before positions would pass 2^53. */
export const MAX_TRANSACTIONS = 2 ** (53 - INDEX_BITS);

export class PositionSpaceExhaustedError extends Error {
  constructor(readonly transactions: bigint) {
    super(
      `PostgreSQL event store: ${transactions} transactions since the store was created; ` +
        `positions past ${MAX_TRANSACTIONS} transactions would not be safe integers`,
    );
    this.name = 'PositionSpaceExhaustedError';
  }
}

/** The first position of the transaction `xid` (a decimal xid8), for a store whose base is `base`. */
export function firstPositionOf(xid: string, base: bigint): number {
  const transactions = BigInt(xid) - base;
  if (transactions < 1n || transactions >= BigInt(MAX_TRANSACTIONS)) throw new PositionSpaceExhaustedError(transactions);
  return Number(transactions) * MAX_EVENTS_PER_TRANSACTION;
}

/**
 * SQL for the frontier: every position below it is final (its transaction has ended) and every
 * event not yet visible will get a position at or above it. `$base` is the parameter holding the
 * store's base. Evaluated inside the reading statement, so it describes that statement's snapshot.
 */
export const frontierSql = (baseParam: string): string =>
  `((pg_snapshot_xmin(pg_current_snapshot())::text::bigint - ${baseParam}::bigint) * ${MAX_EVENTS_PER_TRANSACTION})`;
