import { Client } from 'pg';
import { AppendResult, EventStore, WrongExpectedRevisionError } from '../../src/event-store/event-store';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store';
import { MAX_EVENTS_PER_TRANSACTION } from '../../src/event-store/postgres/position';
import { SCHEMA_VERSION } from '../../src/event-store/postgres/schema';
import { createDatabase } from '../support/postgres-cluster';
import { WAIT_MS, collect, currentPosition, ev, evs, guarded, range, revisions, sleep, streamId, withTimeout } from './contract/helpers';
import { describeEventStoreContract } from './event-store-contract';

// Decided once by test/global-setup.ts, which starts a throw-away cluster.
const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = process.env.RUNLEDGER_PG_SKIP_REASON ?? 'test/global-setup.ts did not run';

if (!adminUrl) {
  process.stderr.write(`PostgreSQL event-store suites skipped: ${skipReason}\n`);
  describe.skip('EventStore contract: postgres', () => {
    it('runs the contract suite against PostgreSQL', () => undefined);
  });
} else {
  describeEventStoreContract('postgres', async () => PostgresEventStore.connect(await createDatabase(adminUrl, 'contract')));
  // The server's way (POSTGRES_WRITER=thread): the same rules with the appends on a writer thread.
  describeEventStoreContract('postgres (writer thread)', async () =>
    PostgresEventStore.connect(await createDatabase(adminUrl, 'contract_thread'), { writer: 'thread' }),
  );

  describe('PostgresEventStore', () => {
    let url: string;
    let store: PostgresEventStore;
    const others: EventStore[] = [];
    let sql: Client;

    beforeAll(async () => {
      url = await createDatabase(adminUrl, 'adapter');
      sql = new Client({ connectionString: url });
      await sql.connect();
    });

    beforeEach(async () => {
      store = await PostgresEventStore.connect(url);
    });

    afterEach(async () => {
      jest.restoreAllMocks();
      await store.close();
      for (const other of others.splice(0)) await other.close();
    });

    afterAll(async () => {
      await sql?.end();
    });

    /** Another instance on the same database, closed after the test. */
    async function anotherInstance(): Promise<PostgresEventStore> {
      const other = await PostgresEventStore.connect(url);
      others.push(other);
      return other;
    }

    describe('group commit', () => {
      it('commits every append requested in one turn in one transaction, failing only the conflicting ones', async () => {
        const existing = streamId('existing');
        await store.append(existing, evs(2), 'no_stream');
        const begin = jest.spyOn(Client.prototype, 'query');
        const streams = range(0, 40).map((k) => streamId(`group-${k}`));
        const appends: Promise<AppendResult>[] = streams.map((s, k) => store.append(s, [ev('test.grouped', { k })], 'no_stream'));
        // splice() returns the removed elements (none here); the inserted appends are awaited below.
        void appends.splice(10, 0, store.append(existing, evs(1), 0));
        void appends.splice(20, 0, store.append(existing, evs(1), 'no_stream'));
        const outcomes = await Promise.allSettled(appends);

        const transactions = begin.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('BEGIN'));
        expect(transactions).toHaveLength(1);
        const failed = outcomes.flatMap((o, i) => (o.status === 'rejected' ? [i] : []));
        expect(failed).toEqual([10, 20]);
        for (const i of failed) expect((outcomes[i] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
        // One transaction, positions in request order: consecutive.
        const positions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.position] : []));
        expect(positions).toEqual(range(positions[0], positions[0] + 40));
        expect(revisions(await store.readStream(existing))).toEqual([0, 1]);
      });

      it('checks each expected revision against the appends queued before it in the same turn', async () => {
        const chain = streamId('chain');
        const chained = [store.append(chain, evs(1), 'no_stream'), store.append(chain, evs(2), 0), store.append(chain, evs(1), 2)];
        expect((await Promise.all(chained)).map((r) => r.nextRevision)).toEqual([0, 2, 3]);

        const claim = streamId('claim');
        const racing = await Promise.allSettled([
          store.append(claim, [ev('test.claim', { by: 'first' })], 'no_stream'),
          store.append(claim, [ev('test.claim', { by: 'second' })], 'no_stream'),
        ]);
        expect(racing.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
        expect((await store.readStream(claim)).map((e) => e.data)).toEqual([{ by: 'first' }]);
      });

      it('refuses an append larger than one transaction may hold, and events PostgreSQL cannot store, alone', async () => {
        const s = streamId('limits');
        const ok = store.append(s, evs(1), 'no_stream');
        await expect(store.append(s, evs(MAX_EVENTS_PER_TRANSACTION + 1), 'any')).rejects.toThrow(/at most/);
        await expect(store.append(s, [ev('test.nul\u0000')], 'any')).rejects.toThrow(/NUL/);
        await expect(store.append(s, [{ ...ev('test.id'), id: 'not-a-uuid' }], 'any')).rejects.toThrow(/UUID/);
        await expect(store.append(s, [ev('test.bad', { n: BigInt(1) })], 'any')).rejects.toThrow();
        expect((await ok).nextRevision).toBe(0);
        expect(revisions(await store.readStream(s))).toEqual([0]);
      });

      it('stores a batch of the largest size in one transaction', async () => {
        const s = streamId('largest');
        const result = await store.append(s, evs(MAX_EVENTS_PER_TRANSACTION), 'no_stream');
        expect(result.nextRevision).toBe(MAX_EVENTS_PER_TRANSACTION - 1);
        const read = await store.readStream(s);
        expect(read).toHaveLength(MAX_EVENTS_PER_TRANSACTION);
        expect(read.at(-1)!.position - read[0].position).toBe(MAX_EVENTS_PER_TRANSACTION - 1);
      });
    });

    describe('several instances on one database', () => {
      it('lets exactly one of 3 × 10 racing no_stream appends win across instances', async () => {
        const instances = [store, await anotherInstance(), await anotherInstance()];
        const s = streamId('claim-across');
        const outcomes = await Promise.allSettled(range(0, 30).map((w) => instances[w % 3].append(s, [ev('test.claimed', { w })], 'no_stream')));
        const winners = outcomes.flatMap((o, w) => (o.status === 'fulfilled' ? [w] : []));
        expect(winners).toHaveLength(1);
        for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(s)).map((e) => e.data)).toEqual([{ w: winners[0] }]);
      });

      it('serialises writers on three instances that retry on conflict into one gap-free stream', async () => {
        const instances = [store, await anotherInstance(), await anotherInstance()];
        const s = streamId('retry-across');
        const perWriter = 8;
        const write = async (w: number): Promise<void> => {
          const mine = instances[w % 3];
          for (let k = 0; k < perWriter; k++) {
            for (;;) {
              const head = await mine.streamHead(s);
              try {
                await mine.append(s, [ev('test.retried', { w, k })], head ?? 'no_stream');
                break;
              } catch (e) {
                if (!(e instanceof WrongExpectedRevisionError)) throw e;
              }
            }
          }
        };
        await Promise.all(range(0, 6).map(write));
        const read = await store.readStream(s);
        expect(revisions(read)).toEqual(range(0, 6 * perWriter));
        for (let w = 0; w < 6; w++) expect(read.filter((e) => e.data.w === w).map((e) => e.data.k)).toEqual(range(0, perWriter));
        for (let k = 1; k < read.length; k++) expect(read[k].position).toBeGreaterThan(read[k - 1].position);
      });

      it('wakes subscribers on another instance through NOTIFY, well before any poll', async () => {
        const reader = await anotherInstance();
        const s = streamId('notify');
        const from = await currentPosition(store);
        const onStream = collect((signal) => reader.subscribeToStream(s, { signal }), 2, { timeoutMs: 2_000 });
        const onAll = collect((signal) => reader.subscribeToAll({ after: from, signal }), 2, { filter: (e) => e.streamId === s, timeoutMs: 2_000 });
        await sleep(100);
        const started = performance.now();
        await store.append(s, evs(1), 'no_stream');
        await sleep(30);
        await store.append(s, evs(1, 'test.happened', 1), 0);
        const [viaStream, viaAll] = await Promise.all([onStream, onAll]);
        // The idle poll is 5 s: arriving within 1 s means a notification woke them.
        expect(performance.now() - started).toBeLessThan(1_000);
        expect(revisions(viaStream)).toEqual([0, 1]);
        expect(viaAll).toEqual(viaStream);
      });
    });

    describe('the log', () => {
      it('keeps the exact JSON text of data and metadata, key order included', async () => {
        const s = streamId('bytes');
        const data = { zeta: 1, alpha: { y: [3, 1, 2], b: null }, '10': 'ten', '2': 'two', mid: 1.5, e: 1e21, text: 'é "q" \\ \u2028' };
        await store.append(s, [ev('test.bytes', data)], 'no_stream');
        const { rows } = await sql.query('SELECT data::text AS data, metadata::text AS metadata FROM runledger_events WHERE stream_id = $1', [s]);
        expect(rows[0].data).toBe(JSON.stringify(data));
        expect(rows[0].metadata).toBe(JSON.stringify(ev('x').metadata));
        const [read] = await store.readStream(s);
        expect(JSON.stringify(read.data)).toBe(JSON.stringify(data));
        expect(Object.keys(read.data)).toEqual(Object.keys(data));
        const [live] = await collect((signal) => store.subscribeToStream(s, { signal }), 1);
        expect(JSON.stringify(live.data)).toBe(JSON.stringify(data));
      });

      it('stores each row of a group commit with its own data and metadata, large and small alike', async () => {
        const streams = Array.from({ length: 6 }, (_, k) => streamId(`rows-${k}`));
        const dataOf = (k: number, i: number) => ({ k, i, text: k % 2 ? 'x'.repeat(40_000) : `small ${k}.${i} "q" \\ é` });
        // Started together: they join one transaction (or a few), as a burst of starts does.
        await Promise.all(
          streams.map((s, k) =>
            store.append(
              s,
              [0, 1, 2].map((i) => ev('test.rows', dataOf(k, i))),
              'no_stream',
            ),
          ),
        );
        for (const [k, s] of streams.entries()) {
          const read = await store.readStream(s);
          expect(read.map((e) => e.data)).toEqual([0, 1, 2].map((i) => dataOf(k, i)));
          const { rows } = await sql.query('SELECT data::text AS data FROM runledger_events WHERE stream_id = $1 ORDER BY revision', [s]);
          expect(rows.map((r) => r.data)).toEqual([0, 1, 2].map((i) => JSON.stringify(dataOf(k, i))));
        }
      });

      it('derives each position from its transaction id and its index within the transaction', async () => {
        const s = streamId('xid');
        await store.append(s, evs(3), 'no_stream');
        const { rows } = await sql.query<{ position: string; tx: string; base: string }>(
          `SELECT position, tx_id::text AS tx, (SELECT xid_base FROM runledger_store) AS base FROM runledger_events WHERE stream_id = $1 ORDER BY revision`,
          [s],
        );
        const first = (BigInt(rows[0].tx) - BigInt(rows[0].base)) * BigInt(MAX_EVENTS_PER_TRANSACTION);
        expect(rows.map((r) => BigInt(r.position) - first)).toEqual([0n, 1n, 2n]);
        expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
      });

      it('migrates once, records its version, and refuses a database of a newer version', async () => {
        const { rows } = await sql.query<{ version: number }>('SELECT version FROM runledger_migrations ORDER BY version');
        expect(rows.map((r) => r.version)).toEqual(range(1, SCHEMA_VERSION + 1));
        const base = (await sql.query('SELECT xid_base FROM runledger_store')).rows;
        const again = await anotherInstance();
        await again.close();
        expect((await sql.query('SELECT xid_base FROM runledger_store')).rows).toEqual(base);
        await sql.query('INSERT INTO runledger_migrations (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
        try {
          await expect(PostgresEventStore.connect(url)).rejects.toThrow(/newer/);
        } finally {
          await sql.query('DELETE FROM runledger_migrations WHERE version = $1', [SCHEMA_VERSION + 1]);
        }
      });

      it('migrates a fresh database once when three instances start at the same moment', async () => {
        const fresh = await createDatabase(adminUrl, 'concurrent_start');
        const started = await Promise.all([0, 1, 2].map(() => PostgresEventStore.connect(fresh)));
        others.push(...started);
        const check = new Client({ connectionString: fresh });
        await check.connect();
        try {
          expect((await check.query('SELECT version FROM runledger_migrations ORDER BY version')).rows.map((r) => r.version)).toEqual(
            range(1, SCHEMA_VERSION + 1),
          );
          expect((await check.query('SELECT count(*)::int AS n FROM runledger_store')).rows[0].n).toBe(1);
        } finally {
          await check.end();
        }
        const s = streamId('fresh');
        await started[0].append(s, evs(1), 'no_stream');
        expect(revisions(await started[2].readStream(s))).toEqual([0]);
      });

      it('keeps every event across close and reopen, and continues revisions and positions', async () => {
        const s = streamId('reopen');
        const last = await store.append(s, evs(3), 'no_stream');
        const before = await store.readStream(s);
        await store.close();
        store = await PostgresEventStore.connect(url);
        expect(await store.readStream(s)).toEqual(before);
        const next = await store.append(s, evs(1), 2);
        expect(next.nextRevision).toBe(3);
        expect(next.position).toBeGreaterThan(last.position);
      });
    });

    describe('close', () => {
      it('commits appends still queued, then refuses new ones', async () => {
        const s = streamId('late');
        const pending = store.append(s, evs(2), 'no_stream');
        await store.close();
        await expect(pending).resolves.toMatchObject({ nextRevision: 1 });
        await expect(store.append(s, evs(1), 1)).rejects.toThrow(/closed/);
        store = await PostgresEventStore.connect(url);
        expect(revisions(await store.readStream(s))).toEqual([0, 1]);
      });

      it('ends live subscriptions', async () => {
        const s = streamId('live');
        await store.append(s, evs(1), 'no_stream');
        const seen: number[] = [];
        const loop = (async () => {
          for await (const e of guarded(store.subscribeToStream(s))) seen.push(e.revision);
        })();
        const all = (async () => {
          for await (const e of guarded(store.subscribeToAll())) void e;
        })();
        const filtered = (async () => {
          for await (const item of store.subscribeToAllFiltered({ filter: { streamPrefixes: [s] } })) void item;
        })();
        await sleep(50);
        await store.close();
        await withTimeout(Promise.all([loop, all, filtered]), WAIT_MS, 'subscriptions to end on close');
        expect(seen).toEqual([0]);
        store = await PostgresEventStore.connect(url);
      });
    });
  });
}
