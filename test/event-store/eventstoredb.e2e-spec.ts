import { StoredEvent } from '../../src/event-store/event-store';
import { EventStoreDbEventStore } from '../../src/event-store/eventstoredb/eventstoredb-event-store';
import { WAIT_MS, currentPosition, evs, range, revisions, sleep, streamId, withTimeout } from './contract/helpers';
import { describeEventStoreContract } from './event-store-contract';
import { TcpProxy } from './tcp-proxy';

// Decided once by test/global-setup.ts; see there for where the server comes from.
const url = process.env.RUNLEDGER_ESDB_URL;
const skipReason = process.env.RUNLEDGER_ESDB_SKIP_REASON ?? 'test/global-setup.ts did not run';

/** host, port and query of a single-node, plain-text connection string: the only kind a TCP proxy can sit in. */
function proxiable(connectionString: string): { host: string; port: number; query: string } | undefined {
  const match = /^(?:esdb|kurrentdb|kurrent):\/\/([^@/,?]+):(\d+)\/?(\?.*)?$/.exec(connectionString);
  if (!match || !/[?&]tls=false(&|$)/i.test(match[3] ?? '')) return undefined;
  return { host: match[1], port: Number(match[2]), query: match[3] };
}

/** Pulls `count` events from a running iterator, failing (not hanging) if they do not come. */
async function take(iterator: AsyncIterator<StoredEvent>, count: number, into: StoredEvent[], accept: (event: StoredEvent) => boolean = () => true) {
  const target = into.length + count;
  while (into.length < target) {
    const next = await withTimeout(iterator.next(), WAIT_MS, `event ${into.length + 1} of ${target}`);
    if (next.done) throw new Error(`subscription ended after ${into.length} events`);
    if (accept(next.value)) into.push(next.value);
  }
}

if (!url) {
  process.stderr.write(`EventStoreDB contract suite skipped: ${skipReason}\n`);
  describe.skip('EventStore contract: eventstoredb', () => {
    it('runs the contract suite against EventStoreDB', () => undefined);
  });
} else {
  describeEventStoreContract('eventstoredb', () => EventStoreDbEventStore.connect(url));

  describe('EventStoreDbEventStore', () => {
    const target = proxiable(url);
    // Through a proxy the test can cut: the server stays up, the client sees its connection die.
    (target ? describe : describe.skip)('subscriptions across a connection drop', () => {
      let proxy: TcpProxy;
      let direct: EventStoreDbEventStore;
      let proxied: EventStoreDbEventStore;

      beforeAll(async () => {
        proxy = await TcpProxy.start(target!.host, target!.port);
        direct = await EventStoreDbEventStore.connect(url);
        proxied = await EventStoreDbEventStore.connect(`esdb://${proxy.address}${target!.query}`);
      });

      afterAll(async () => {
        await proxied?.close();
        await direct?.close();
        await proxy?.close();
      });

      /** Cuts every connection, keeps reconnects refused for a moment (so back-off is exercised), then lets them through. */
      async function outage(duringOutage: () => Promise<unknown>): Promise<void> {
        // Nothing dropped would make the test pass without testing anything.
        expect(await proxy.pause()).toBeGreaterThan(0);
        await duringOutage();
        await sleep(300);
        await proxy.resume();
      }

      it('resumes a stream subscription after the last delivered revision', async () => {
        const s = streamId('drop-stream');
        await direct.append(s, evs(3), 'no_stream');
        const controller = new AbortController();
        const iterator = proxied.subscribeToStream(s, { signal: controller.signal })[Symbol.asyncIterator]();
        const received: StoredEvent[] = [];
        try {
          await take(iterator, 3, received);
          await outage(() => direct.append(s, evs(3, 'test.happened', 3), 2));
          await direct.append(s, evs(2, 'test.happened', 6), 5);
          await take(iterator, 5, received);
        } finally {
          controller.abort();
          await iterator.return?.();
        }
        expect(revisions(received)).toEqual(range(0, 8));
        expect(received).toEqual(await direct.readStream(s));
        // The same client keeps working for plain calls after the drop.
        expect((await proxied.append(s, evs(1, 'test.happened', 8), 7)).nextRevision).toBe(8);
      });

      it('resumes an $all subscription after the last delivered position', async () => {
        const from = await currentPosition(direct);
        const s = streamId('drop-all');
        await direct.append(s, evs(2), 'no_stream');
        const controller = new AbortController();
        const iterator = proxied.subscribeToAll({ after: from, signal: controller.signal })[Symbol.asyncIterator]();
        const received: StoredEvent[] = [];
        const ours = (e: StoredEvent) => e.streamId === s;
        try {
          await take(iterator, 2, received, ours);
          await outage(() => direct.append(s, evs(2, 'test.happened', 2), 1));
          await direct.append(s, evs(2, 'test.happened', 4), 3);
          await take(iterator, 4, received, ours);
        } finally {
          controller.abort();
          await iterator.return?.();
        }
        expect(revisions(received)).toEqual(range(0, 6));
        expect(received).toEqual(await direct.readStream(s));
      });
    });
  });
}
