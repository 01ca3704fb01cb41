import { Pool } from 'pg';
import { AllFilter } from '../../src/event-store/event-store';
import { PgAllTail, TailMember } from '../../src/event-store/postgres/all-tail';
import { migrate } from '../../src/event-store/postgres/schema';
import { ALL_STREAMS, WakeHub } from '../../src/event-store/wake-hub';
import { PostgresEventStore } from '../../src/event-store/postgres/postgres-event-store';
import * as pgReads from '../../src/event-store/postgres/reads';
import { createDatabase } from '../support/postgres-cluster';
import { currentPosition, defaultMetadata, ev, evs, sleep, streamId } from './contract/helpers';
import { ItemReader, readItems } from './contract/items';

const adminUrl = process.env.RUNLEDGER_PG_URL;
const skipReason = process.env.RUNLEDGER_PG_SKIP_REASON ?? 'test/global-setup.ts did not run';
const COMMITS = 40;

/** Wakes the tail and waits (up to 2 s) until its head reaches `position`, as `member` sees it. */
async function headReaches(hub: WakeHub, member: TailMember, position: number): Promise<void> {
  hub.wake([ALL_STREAMS]);
  for (let k = 0; k < 200 && (member.after(position - 1)?.head ?? 0) < position; k++) await sleep(10);
}

/**
 * The caught-up $all subscriptions of one process share one reader (all-tail.ts): each commit
 * costs one read of $all, not one per subscription, and each subscription still gets exactly the
 * events its filter asks for, in order, with checkpoints that never overtake them.
 */
(adminUrl ? describe : describe.skip)('PostgreSQL: one reader of $all for every caught-up subscription', () => {
  if (!adminUrl) process.stderr.write(`PostgreSQL $all tail suite skipped: ${skipReason}\n`);
  let store: PostgresEventStore;

  beforeAll(async () => {
    store = await PostgresEventStore.connect(await createDatabase(adminUrl!, 'tail'), { writer: 'inline' });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await store?.close();
  });

  it('serves five filtered subscriptions from one read per commit, each with exactly its events', async () => {
    const prefix = `${streamId('tail')}-`;
    const from = await currentPosition(store);
    const filters: AllFilter[] = [
      {},
      { streamPrefixes: [`${prefix}a`] },
      { tenantId: 'other' },
      { types: ['test.odd'] },
      { streamPrefixes: [`${prefix}a`, `${prefix}b`], types: ['test.even'] },
    ];
    const readers: ItemReader[] = filters.map((filter) => readItems((signal) => store.subscribeToAllFiltered({ filter, after: from, signal })));
    // Each catches up by itself first: a short read that shows it something (an event or a checkpoint).
    const warm = () => store.append(`${prefix}warm`, [ev('test.warm')], 'any');
    await Promise.all(readers.map((reader) => reader.until((items) => items.length > 0, { idleMs: 200, onIdle: warm })));

    const written = Array.from({ length: COMMITS }, (_, i) => ({
      streamId: `${prefix}${'abc'[i % 3]}`,
      type: i % 2 === 0 ? 'test.even' : 'test.odd',
      tenantId: i % 4 === 0 ? 'other' : defaultMetadata.tenantId,
    }));
    const mine = (filter: AllFilter) =>
      written.filter(
        (e) =>
          (!filter.tenantId || e.tenantId === filter.tenantId) &&
          (!filter.streamPrefixes || filter.streamPrefixes.some((p) => e.streamId.startsWith(p))) &&
          (!filter.types || filter.types.includes(e.type)),
      );
    const ofTest = (reader: ItemReader) => reader.events().filter((e) => e.streamId.startsWith(prefix) && e.type !== 'test.warm');
    const reading = jest.spyOn(pgReads, 'readAllChunk');
    // Every subscription pulls while the commits happen, one after the other.
    const received = Promise.all(readers.map((reader, k) => reader.until(() => ofTest(reader).length >= mine(filters[k]).length)));
    for (const [i, e] of written.entries()) {
      await store.append(e.streamId, [ev(e.type, { i }, { metadata: { ...defaultMetadata, tenantId: e.tenantId } })], 'any');
    }
    await received;
    const readCount = reading.mock.calls.length;
    reading.mockRestore();

    for (const [k, reader] of readers.entries()) {
      expect(ofTest(reader).map((e) => ({ streamId: e.streamId, type: e.type, tenantId: e.metadata.tenantId }))).toEqual(mine(filters[k]));
      const positions = reader.items.map((item) => (item.kind === 'event' ? item.event.position : item.position));
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
    }
    // One read per commit at most, however many subscriptions (one each per commit before the tail).
    expect(readCount).toBeLessThanOrEqual(COMMITS + 2);
    await Promise.all(readers.map((reader) => reader.stop()));
  });

  it('keeps at most its weight of events: a cursor before what it still holds reads for itself', async () => {
    const url = await createDatabase(adminUrl!, 'tailweight');
    const heavyStore = await PostgresEventStore.connect(url, { writer: 'inline' });
    const pool = new Pool({ connectionString: url, max: 2 });
    const hub = new WakeHub();
    // Ten events of ~10,000 weigh the whole budget; past it the tail keeps half of it at most.
    const tail = new PgAllTail(pool, (await migrate(pool)).xidBase, hub, 100_000);
    try {
      const start = await currentPosition(heavyStore);
      const member = tail.join(start);
      const positions: number[] = [];
      for (let i = 0; i < 12; i++) {
        positions.push((await heavyStore.append(streamId('heavy'), [ev('test.heavy', { pad: 'x'.repeat(9_700) })], 'any')).position);
        await headReaches(hub, member, positions[i]);
      }
      const last = positions[11];
      expect(member.after(last - 1)?.events.map((e) => e.position)).toEqual([last]);
      // What is kept weighs no more than half the budget once cut: the first events are gone.
      expect(member.after(start)).toBeNull();
      const kept = member.after(positions[5])?.events.map((e) => e.position);
      expect(kept).toEqual(positions.slice(6));
      member.leave();
    } finally {
      await pool.end();
      await heavyStore.close();
    }
  });

  it('lets go of what every subscription has read but the newest 256 events, so that $all dies young', async () => {
    const url = await createDatabase(adminUrl!, 'tailread');
    const writer = await PostgresEventStore.connect(url, { writer: 'inline' });
    const pool = new Pool({ connectionString: url, max: 2 });
    const hub = new WakeHub();
    const tail = new PgAllTail(pool, (await migrate(pool)).xidBase, hub);
    try {
      const start = await currentPosition(writer);
      const [reader, laggard] = [tail.join(start), tail.join(start)];
      const first = await writer.append(streamId('many'), evs(400), 'any');
      const positions = Array.from({ length: 400 }, (_, i) => first.position - 399 + i);
      await headReaches(hub, reader, first.position);
      // One subscription has read everything, the other nothing: all 400 stay for the laggard.
      reader.after(first.position);
      const next = await writer.append(streamId('many'), [ev('test.next')], 'any');
      await headReaches(hub, reader, next.position);
      expect(laggard.after(start)?.events).toHaveLength(401);
      // Both have read everything: the newest 256 stay, the rest go.
      reader.after(next.position);
      laggard.after(next.position);
      const last = await writer.append(streamId('many'), [ev('test.last')], 'any');
      await headReaches(hub, reader, last.position);
      const newest = [...positions, next.position, last.position].slice(-256);
      expect(laggard.after(newest[0] - 1)?.events.map((e) => e.position)).toEqual(newest);
      expect(laggard.after(start)).toBeNull();
      reader.leave();
      laggard.leave();
    } finally {
      await pool.end();
      await writer.close();
    }
  });
});
