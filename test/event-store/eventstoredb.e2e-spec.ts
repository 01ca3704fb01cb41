import { newId } from '../../src/common/ids';
import { NewEvent, StoreUnavailableError, StoredEvent, WrongExpectedRevisionError } from '../../src/event-store/event-store';
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

      /** Events with ids of their own, so a retry sends exactly the same events again. */
      const withIds = (events: NewEvent[]): NewEvent[] => events.map((event) => ({ ...event, id: newId() }));
      /** Settles within WAIT_MS either way, so a client stuck on a dead connection fails the test instead of hanging it. */
      const settle = <T>(promise: Promise<T>, what: string) =>
        withTimeout(promise, WAIT_MS, what).then(
          (value) => ({ value, error: undefined }),
          (error: unknown) => ({ value: undefined, error }),
        );

      /** After the outage: the appended events are in the stream exactly once, in order, with their ids. */
      async function expectStoredOnce(s: string, before: number, events: NewEvent[]): Promise<void> {
        const stored = await direct.readStream(s);
        expect(revisions(stored)).toEqual(range(0, before + events.length));
        expect(stored.slice(before).map((e) => e.id)).toEqual(events.map((e) => e.id));
        expect(stored.slice(before).map((e) => e.data)).toEqual(events.map((e) => e.data));
      }

      it('rejects an append while the connection is cut with StoreUnavailableError, and takes its retry once back', async () => {
        const s = streamId('drop-append');
        await direct.append(s, evs(2), 'no_stream');
        expect(await proxied.streamHead(s)).toBe(1); // the proxied client holds a connection to cut
        const events = withIds(evs(3, 'test.happened', 2));
        let failed: { error: unknown };
        try {
          expect(await proxy.pause()).toBeGreaterThan(0);
          failed = await settle(proxied.append(s, events, 1), 'an append while the connection is cut');
        } finally {
          await proxy.resume();
        }
        expect(failed.error).toBeInstanceOf(StoreUnavailableError);
        expect(failed.error).not.toBeInstanceOf(WrongExpectedRevisionError);
        expect(await direct.streamHead(s)).toBe(1);
        expect((await withTimeout(proxied.append(s, events, 1), WAIT_MS, 'the retry')).nextRevision).toBe(4);
        await expectStoredOnce(s, 2, events);
      });

      it('after a cut mid-append, a retry of the same events succeeds or conflicts, and they are stored exactly once', async () => {
        const s = streamId('drop-mid-append');
        await direct.append(s, evs(2), 'no_stream');
        expect(await proxied.streamHead(s)).toBe(1);
        const events = withIds(evs(3, 'test.happened', 2));
        let first: { value?: unknown; error: unknown };
        try {
          // The request is on its way when every connection dies: the outcome is unknown to the client.
          const inFlight = proxied.append(s, events, 1);
          expect(await proxy.pause()).toBeGreaterThan(0);
          first = await settle(inFlight, 'an append cut mid-flight');
        } finally {
          await sleep(100);
          await proxy.resume();
        }
        if (first.error !== undefined) expect(first.error).toBeInstanceOf(StoreUnavailableError);
        const retry = await settle(proxied.append(s, events, 1), 'the retry');
        if (retry.error !== undefined) {
          // Only possible when the first attempt was stored (an idempotent retry would succeed instead).
          expect(retry.error).toBeInstanceOf(WrongExpectedRevisionError);
          expect((retry.error as WrongExpectedRevisionError).actual).toBe(4);
        } else {
          expect(retry.value).toMatchObject({ nextRevision: 4 });
        }
        await expectStoredOnce(s, 2, events);
      });

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
