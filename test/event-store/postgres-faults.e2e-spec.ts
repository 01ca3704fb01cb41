import { newId } from '../../src/common/ids';
import { NewEvent, StoreUnavailableError, StoredEvent, WrongExpectedRevisionError } from '../../src/event-store/event-store';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store';
import { PostgresCluster, createDatabase, findPostgresBinaries, startCluster } from '../support/postgres-cluster';
import { collect, currentPosition, ev, range, revisions, sleep, streamId } from './contract/helpers';
import { readItems } from './contract/items';

/**
 * The PostgreSQL adapter when the server goes away for real (ENGINEERING rule 11): its own
 * throw-away cluster, stopped with `pg_ctl stop -m fast` (every connection is terminated) while
 * appends and subscriptions run, then started again. No mocks.
 */
const skipReason = !process.env.RUNLEDGER_PG_URL
  ? (process.env.RUNLEDGER_PG_SKIP_REASON ?? 'test/global-setup.ts did not run')
  : findPostgresBinaries()
    ? undefined
    : 'it stops and starts a cluster of its own, and there are no PostgreSQL binaries (initdb, pg_ctl)';

if (skipReason) {
  process.stderr.write(`PostgreSQL fault suite skipped: ${skipReason}\n`);
  describe.skip('PostgresEventStore when the server stops', () => {
    it('runs against a PostgreSQL cluster of its own', () => undefined);
  });
} else {
  describe('PostgresEventStore when the server stops', () => {
    let cluster: PostgresCluster;
    let url: string;
    const stores: PostgresEventStore[] = [];

    beforeAll(async () => {
      // Its own cluster: stopping the shared one would fail every other suite running meanwhile.
      cluster = await startCluster();
      url = await createDatabase(cluster.adminUrl, 'faults');
    }, 60_000);

    afterAll(async () => {
      for (const store of stores) await store.close().catch(() => undefined);
      await cluster?.destroy();
    });

    async function instance(): Promise<PostgresEventStore> {
      const store = await PostgresEventStore.connect(url, { connectTimeoutMs: 2_000 });
      stores.push(store);
      return store;
    }

    async function rejection(promise: Promise<unknown>): Promise<unknown> {
      return promise.then(
        () => {
          throw new Error('expected a rejection');
        },
        (error: unknown) => error,
      );
    }

    it('rejects appends and reads with StoreUnavailableError while it is down; afterwards appends succeed and subscriptions resume without a gap', async () => {
      const [writer, follower] = [await instance(), await instance()];
      const prefix = `${streamId('outage')}-`;
      const s = `${prefix}main`;
      const from = await currentPosition(writer);
      await writer.append(s, [ev('test.before', { n: 0 }), ev('test.before', { n: 1 })], 'no_stream');
      const total = 60;

      // Followers on the other instance: it must reconnect its listener and resume its reads on its own.
      const onStream = collect((signal) => follower.subscribeToStream(s, { signal }), total, { timeoutMs: 40_000 });
      const onAll = collect((signal) => follower.subscribeToAll({ after: from, signal }), total, {
        filter: (e) => e.streamId === s,
        timeoutMs: 40_000,
      });
      const filtered = readItems((signal) => follower.subscribeToAllFiltered({ filter: { streamPrefixes: [prefix] }, after: from, signal }));
      const filteredDone = filtered.until((items) => items.filter((item) => item.kind === 'event').length >= total, { timeoutMs: 40_000 });

      // One writer appending event after event, each with its own id; a refused append is retried
      // with the same events, and a conflict after an unknown outcome is resolved by the ids.
      const refusals: unknown[] = [];
      let written = 2;
      const writing = (async () => {
        while (written < total) {
          const events: NewEvent[] = [{ ...ev('test.during', { n: written }), id: newId() }];
          for (;;) {
            try {
              await writer.append(s, events, written - 1);
              break;
            } catch (error) {
              if (error instanceof WrongExpectedRevisionError) {
                const stored = await writer.readStream(s, { after: written - 1 });
                if (stored[0]?.id === events[0].id) break;
                throw error;
              }
              if (!(error instanceof StoreUnavailableError)) throw error;
              refusals.push(error);
              await sleep(50);
            }
          }
          written += 1;
          await sleep(5);
        }
      })();

      await sleep(150);
      await cluster.stop('fast');
      try {
        // While it is down, every call says so with the port's typed error, and quickly.
        const started = performance.now();
        expect(await rejection(writer.append(streamId('down'), [ev('test.down')], 'no_stream'))).toBeInstanceOf(StoreUnavailableError);
        expect(await rejection(writer.readStream(s))).toBeInstanceOf(StoreUnavailableError);
        expect(await rejection(writer.streamHead(s))).toBeInstanceOf(StoreUnavailableError);
        expect(await rejection(follower.readAll({ after: from }))).toBeInstanceOf(StoreUnavailableError);
        expect(performance.now() - started).toBeLessThan(5_000);
        await sleep(400);
      } finally {
        await cluster.start();
      }
      await writing;

      expect(refusals.length).toBeGreaterThan(0);
      for (const refusal of refusals) expect(refusal).not.toBeInstanceOf(WrongExpectedRevisionError);
      const stored = await writer.readStream(s);
      expect(revisions(stored)).toEqual(range(0, total));
      expect(stored.map((e) => e.data.n)).toEqual(range(0, total));

      const [viaStream, viaAll] = await Promise.all([onStream, onAll]);
      await filteredDone;
      await filtered.stop();
      expect(viaStream).toEqual(stored);
      expect(viaAll).toEqual(stored);
      expect(filtered.events()).toEqual(stored);
      // The instance that was cut off takes writes again too, and its followers see them.
      const next = await follower.append(s, [ev('test.after', { n: total })], total - 1);
      expect(next.nextRevision).toBe(total);
      const [last] = await collect((signal) => writer.subscribeToStream(s, { after: total - 1, signal }), 1);
      expect((last as StoredEvent).data).toEqual({ n: total });
    }, 60_000);
  });
}
