import { StoredEvent } from '../../../src/event-store/event-store';
import {
  ContractContext,
  WAIT_MS,
  collect,
  currentPosition,
  evs,
  expectStrictlyIncreasing,
  guarded,
  quiet,
  range,
  revisions,
  sleep,
  streamId,
  trickle,
  withTimeout,
} from './helpers';

export function describeSubscribeContract(ctx: ContractContext): void {
  describe('subscribeToStream', () => {
    it('hands over from backlog to live with no gap and no duplicate while writers append', async () => {
      const s = streamId('handover');
      await ctx.store.append(s, evs(5), 'no_stream');
      const total = 5 + 3 * 25;
      let writers: Promise<void[]> | undefined;
      const received = await collect((signal) => ctx.store.subscribeToStream(s, { signal }), total, {
        // Writers start in the same turn as the subscription, so they race its first backlog read.
        onStarted: () => {
          writers = quiet(Promise.all([0, 1, 2].map((w) => trickle(ctx.store, s, 25, 1000 * (w + 1)))));
        },
      });
      await writers;
      expect(revisions(received)).toEqual(range(0, total));
      expect(received).toEqual(await ctx.store.readStream(s));
    });

    it('starts after the given revision and delivers only that stream', async () => {
      const [s, other] = [streamId('sub-after'), streamId('sub-other')];
      await ctx.store.append(s, evs(4), 'no_stream');
      const pending = collect((signal) => ctx.store.subscribeToStream(s, { after: 1, signal }), 6);
      await ctx.store.append(other, evs(3), 'no_stream');
      await ctx.store.append(s, evs(4, 'test.happened', 4), 3);
      const received = await pending;
      expect(revisions(received)).toEqual(range(2, 8));
      expect(received.every((e) => e.streamId === s)).toBe(true);
    });

    it('waits for a stream that does not exist yet', async () => {
      const s = streamId('sub-missing');
      const pending = collect((signal) => ctx.store.subscribeToStream(s, { signal }), 2);
      await sleep(50);
      await ctx.store.append(s, evs(2), 'no_stream');
      expect(revisions(await pending)).toEqual([0, 1]);
    });

    it('waits at the head, and beyond it delivers only revisions after `after`', async () => {
      const s = streamId('sub-beyond');
      await ctx.store.append(s, evs(3), 'no_stream');
      const atHead = collect((signal) => ctx.store.subscribeToStream(s, { after: 2, signal }), 5);
      const beyond = collect((signal) => ctx.store.subscribeToStream(s, { after: 5, signal }), 2);
      await sleep(50);
      await ctx.store.append(s, evs(2, 'test.happened', 3), 2);
      await sleep(20);
      await ctx.store.append(s, evs(3, 'test.happened', 5), 4);
      expect(revisions(await atHead)).toEqual([3, 4, 5, 6, 7]);
      expect(revisions(await beyond)).toEqual([6, 7]);
    });

    it('delivers a last event whose append is in flight while the subscription starts', async () => {
      // No later event would rescue a missed wake-up here: the subscription must see this one.
      const orderings: ((append: () => Promise<unknown>, subscribe: () => Promise<StoredEvent[]>) => Promise<StoredEvent[]>)[] = [
        async (append, subscribe) => (append(), subscribe()),
        async (append, subscribe) => {
          const got = subscribe();
          await append();
          return got;
        },
        async (append, subscribe) => {
          void append();
          await Promise.resolve();
          return subscribe();
        },
        async (append, subscribe) => {
          const got = subscribe();
          await new Promise((resolve) => setImmediate(resolve));
          await append();
          return got;
        },
      ];
      for (const [k, ordering] of orderings.entries()) {
        const s = streamId(`inflight-${k}`);
        await ctx.store.append(s, evs(1), 'no_stream');
        const got = await ordering(
          () => ctx.store.append(s, evs(1, 'test.happened', 1), 0),
          () => collect((signal) => ctx.store.subscribeToStream(s, { after: 0, signal }), 1, { timeoutMs: 3_000 }),
        );
        expect(revisions(got)).toEqual([1]);
        const from = await currentPosition(ctx.store);
        const t = streamId(`inflight-all-${k}`);
        const gotAll = await ordering(
          () => ctx.store.append(t, evs(1), 'no_stream'),
          () =>
            collect((signal) => ctx.store.subscribeToAll({ after: from, signal }), 1, {
              filter: (e) => e.streamId === t,
              timeoutMs: 3_000,
            }),
        );
        expect(revisions(gotAll)).toEqual([0]);
      }
    });

    it('feeds 50 concurrent subscribers the same events', async () => {
      const s = streamId('fanout');
      await ctx.store.append(s, evs(3), 'no_stream');
      const subscribers = range(0, 50).map(() => collect((signal) => ctx.store.subscribeToStream(s, { signal }), 10));
      await sleep(20);
      await ctx.store.append(s, evs(3, 'test.happened', 3), 2);
      await ctx.store.append(s, evs(4, 'test.happened', 6), 5);
      const results = await Promise.all(subscribers);
      const expected = await ctx.store.readStream(s);
      expect(revisions(expected)).toEqual(range(0, 10));
      for (const received of results) expect(received).toEqual(expected);
    });

    it('stops cleanly when the consumer breaks out, and the store keeps working', async () => {
      const s = streamId('break');
      await ctx.store.append(s, evs(5), 'no_stream');
      const early = await withTimeout(
        (async () => {
          const seen: StoredEvent[] = [];
          for await (const e of ctx.store.subscribeToStream(s)) {
            seen.push(e);
            if (seen.length === 2) break;
          }
          return seen;
        })(),
        WAIT_MS,
        'breaking out of a backlog subscription',
      );
      expect(revisions(early)).toEqual([0, 1]);

      // Break while live: the iterator is parked waiting for new events when the event arrives.
      const live = withTimeout(
        (async () => {
          for await (const e of ctx.store.subscribeToStream(s, { after: 4 })) return e;
          return undefined;
        })(),
        WAIT_MS,
        'breaking out of a live subscription',
      );
      await sleep(20);
      await ctx.store.append(s, evs(1, 'test.happened', 5), 4);
      expect((await live)?.revision).toBe(5);

      expect((await ctx.store.append(s, evs(2, 'test.happened', 6), 5)).nextRevision).toBe(7);
      expect(revisions(await collect((signal) => ctx.store.subscribeToStream(s, { signal }), 8))).toEqual(range(0, 8));
    });

    it('ends an idle subscription without throwing when its signal aborts', async () => {
      const s = streamId('abort');
      await ctx.store.append(s, evs(2), 'no_stream');
      const controller = new AbortController();
      const seen: StoredEvent[] = [];
      const loop = (async () => {
        for await (const e of guarded(ctx.store.subscribeToStream(s, { signal: controller.signal }))) seen.push(e);
      })();
      await sleep(50);
      controller.abort();
      await withTimeout(loop, WAIT_MS, 'the subscription to end after abort');
      expect(revisions(seen)).toEqual([0, 1]);
      // Aborting must not disturb the store or other readers.
      await ctx.store.append(s, evs(1), 1);
      expect(await ctx.store.readStream(s)).toHaveLength(3);
    });

    it('yields nothing for a signal that is already aborted', async () => {
      const s = streamId('pre-aborted');
      await ctx.store.append(s, evs(2), 'no_stream');
      const seen: StoredEvent[] = [];
      await withTimeout(
        (async () => {
          for await (const e of guarded(ctx.store.subscribeToStream(s, { signal: AbortSignal.abort() }))) seen.push(e);
        })(),
        WAIT_MS,
        'a pre-aborted subscription to end',
      );
      expect(seen).toEqual([]);
    });
  });

  describe('subscribeToAll', () => {
    it('delivers every event of concurrently written streams once, in order, from a position', async () => {
      const from = await currentPosition(ctx.store);
      const streams = range(0, 4).map((k) => streamId(`all-sub-${k}`));
      // Some events exist before the subscription starts, so it has a backlog to hand over from.
      for (const s of streams) await ctx.store.append(s, evs(2), 'no_stream');
      const perStream = 2 + 15;
      const ours = new Set(streams);
      let writers: Promise<void[]> | undefined;
      const received = await collect((signal) => ctx.store.subscribeToAll({ after: from, signal }), streams.length * perStream, {
        filter: (e) => ours.has(e.streamId),
        onStarted: () => {
          writers = quiet(Promise.all(streams.map((s) => trickle(ctx.store, s, 15, 2))));
        },
      });
      await writers;
      expectStrictlyIncreasing(received.map((e) => e.position));
      expect(received.every((e) => e.position > from)).toBe(true);
      for (const s of streams) {
        const mine = received.filter((e) => e.streamId === s);
        expect(revisions(mine)).toEqual(range(0, perStream));
        expect(mine).toEqual(await ctx.store.readStream(s));
      }
    });

    it('starting after the latest position, delivers only new events', async () => {
      const from = await currentPosition(ctx.store);
      const s = streamId('all-live');
      const pending = collect((signal) => ctx.store.subscribeToAll({ after: from, signal }), 3, {
        filter: (e) => e.streamId === s,
      });
      await sleep(50);
      await ctx.store.append(s, evs(3), 'no_stream');
      const received = await pending;
      expect(revisions(received)).toEqual([0, 1, 2]);
    });

    it('ends an idle subscription to $all when its signal aborts', async () => {
      const from = await currentPosition(ctx.store);
      const controller = new AbortController();
      const loop = (async () => {
        // On a shared server others' events may arrive; only ending matters here.
        for await (const e of guarded(ctx.store.subscribeToAll({ after: from, signal: controller.signal }))) void e;
      })();
      await sleep(50);
      controller.abort();
      await withTimeout(loop, WAIT_MS, 'the $all subscription to end after abort');
    });
  });
}
