import type { Pool } from 'pg';
import type { AllFilter, AllSubscriptionItem, StoredEvent } from '../event-store';
import { isUnavailable } from './postgres-errors';
import { READ_CHUNK, readAllChunk, readStreamAfter } from './reads';
import { matchesFilter } from '../recent-log';
import { WakeHub, sleep, wakeOrTimeout } from '../wake-hub';
import { PgAllTail, TAIL, TailMember } from './all-tail';

/** A subscription with nothing to read re-reads this often anyway, in case a wake-up was lost. */
const IDLE_POLL_MS = 5_000;
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

export interface SubscriptionContext {
  pool: Pool;
  xidBase: bigint;
  hub: WakeHub;
  /** A stream's events after a revision from what this process just committed or scanned, or null. */
  recent(streamId: string, after: number): StoredEvent[] | null;
  /** The caught-up $all subscriptions' one reader. */
  tail: PgAllTail;
}

/**
 * A subscription's read: while the database is unavailable it waits and tries again (from the
 * same cursor, so nothing is skipped or repeated); undefined when stopped meanwhile.
 */
async function retrying<T>(stop: AbortSignal, read: () => Promise<T>): Promise<T | undefined> {
  let retryMs = FIRST_RETRY_MS;
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (stop.aborted) return undefined;
      if (!isUnavailable(error)) throw error;
    }
    await sleep(retryMs, stop);
    if (stop.aborted) return undefined;
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }
}

/**
 * One stream after a revision: the backlog, then live events. The wait is registered before each
 * read, so a commit between the read and the wait still wakes it. A stream needs no frontier:
 * its next revision is only ever written by a transaction that saw the previous one committed.
 */
export async function* followStream(ctx: SubscriptionContext, streamId: string, after: number | undefined, stop: AbortSignal): AsyncGenerator<StoredEvent> {
  let cursor = after ?? -1;
  const unfollow = ctx.hub.follow(streamId);
  try {
    while (!stop.aborted) {
      const wait = ctx.hub.wait(streamId, stop);
      try {
        const events = ctx.recent(streamId, cursor) ?? (await retrying(stop, () => readStreamAfter(ctx.pool, streamId, cursor, READ_CHUNK)));
        for (const event of events ?? []) {
          yield event;
          cursor = event.revision;
          if (stop.aborted) return;
        }
        if (events && events.length === READ_CHUNK) continue;
        await wakeOrTimeout(wait.promise, IDLE_POLL_MS);
      } finally {
        wait.cancel();
      }
    }
  } finally {
    unfollow();
  }
}

/**
 * $all after a position, below the frontier (see position.ts), filtered in SQL when `filter` is
 * given. After a short read everything up to the last position below the frontier has been seen,
 * matching or not: that is the checkpoint, which never overtakes an event it covers. From then on
 * the subscription takes its events from the process's shared tail (all-tail.ts), filtered in
 * memory by the tests the SQL makes, and reads for itself again only if it falls behind the tail.
 */
export async function* followAll(
  ctx: SubscriptionContext,
  after: number | undefined,
  filter: AllFilter | undefined,
  stop: AbortSignal,
): AsyncGenerator<AllSubscriptionItem> {
  let cursor = after ?? 0;
  let member: TailMember | undefined;
  try {
    while (!stop.aborted) {
      if (member) {
        const wait = ctx.hub.wait(TAIL, stop);
        try {
          const served = member.after(cursor);
          if (served) {
            for (const event of served.events) {
              if (filter && !matchesFilter(filter, event)) continue;
              yield { kind: 'event', event };
              cursor = event.position;
              if (stop.aborted) return;
            }
            if (served.head > cursor) {
              cursor = served.head;
              yield { kind: 'checkpoint', position: cursor };
            }
            await wait.promise;
            continue;
          }
        } finally {
          wait.cancel();
        }
        member.leave();
        member = undefined;
      }
      const chunk = await retrying(stop, () => readAllChunk(ctx.pool, ctx.xidBase, cursor, READ_CHUNK, filter));
      if (!chunk) continue;
      for (const event of chunk.events) {
        yield { kind: 'event', event };
        cursor = event.position;
        if (stop.aborted) return;
      }
      if (chunk.events.length === READ_CHUNK) continue;
      if (chunk.stableHead > cursor) {
        cursor = chunk.stableHead;
        yield { kind: 'checkpoint', position: cursor };
      }
      member = ctx.tail.join(cursor);
    }
  } finally {
    member?.leave();
  }
}
