import { EventStore, NewEvent, StoreUnavailableError } from '../../src/event-store/event-store';
import { EventStoreGateway } from '../../src/event-store/event-store-gateway';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';

/** The adapter behind the app's observed store (or the store itself). */
const adapterOf = (store: EventStore): EventStore => (store instanceof EventStoreGateway ? store.inner : store);

/**
 * `refuse`: the append fails before the store sees it. `lose-ack`: the store commits it, then
 * the caller is told it failed, as after a timeout or a dropped connection.
 */
export type AppendFault = 'refuse' | 'lose-ack';

/**
 * Wraps one store's `append` so that chosen appends fail with the port's typed error; the real
 * store does all the rest. Returns the function that takes the wrapper off again.
 */
export function injectAppendFaults(app: EventStore, choose: (streamId: string, events: NewEvent[]) => AppendFault | null): () => void {
  // Under the app's observers, so readiness and read-your-writes see the faults as real ones.
  const store = adapterOf(app);
  const real = store.append.bind(store);
  store.append = async (streamId, events, expected) => {
    const fault = choose(streamId, events);
    if (fault === 'refuse') throw new StoreUnavailableError('injected fault: the store refused the append');
    const result = await real(streamId, events, expected);
    if (fault === 'lose-ack') throw new StoreUnavailableError('injected fault: the acknowledgement was lost');
    return result;
  };
  return () => {
    delete (store as { append?: unknown }).append;
  };
}

/**
 * A real SQLite outage, two ways:
 * - `full`: `PRAGMA max_page_count` pinned to the file's current size, so every write that needs
 *   a new page fails with SQLITE_FULL as on a full disk (small writes may still fit in free space,
 *   as they would on a real disk);
 * - `read-only`: `PRAGMA query_only`, so every write fails with SQLITE_READONLY.
 * `end` lifts it.
 */
export function sqliteOutage(store: EventStore, kind: 'full' | 'read-only' = 'full'): { begin(): void; end(): void } {
  const sqlite = adapterOf(store) as SqliteEventStore;
  // On the write connection, wherever it is (the writer thread applies it before later appends).
  const writer = (sql: string) => sqlite.writerPragma(sql);
  return {
    begin: () => {
      if (kind === 'read-only') writer('query_only = ON');
      else writer(`max_page_count = ${sqlite['db'].pragma('page_count', { simple: true }) as number}`);
    },
    end: () => {
      if (kind === 'read-only') writer('query_only = OFF');
      else writer('max_page_count = 4294967294');
    },
  };
}

/** Counts the appends the real store refused, so a test can show its outage really bit. */
export function countRefusals(app: EventStore): { readonly count: number } {
  const store = adapterOf(app);
  const real = store.append.bind(store);
  const counter = { count: 0 };
  store.append = async (...args) => {
    try {
      return await real(...args);
    } catch (error) {
      if (error instanceof StoreUnavailableError) counter.count += 1;
      throw error;
    }
  };
  return counter;
}
