import { randomBytes } from 'node:crypto';
import { AllFilter, AllSubscriptionItem, StoredEvent } from '../../../src/event-store/event-store';
import { ContractContext, WAIT_MS, currentPosition, ev, evs, quiet, sleep, streamId, trickle, withTimeout } from './helpers';
import { expectConsistentItems, readItems } from './items';

/** A type no other test or run uses, so a type filter on a shared store sees only this test's events. */
const uniqueType = (label: string) => `test.${label}-${randomBytes(5).toString('hex')}`;

/** The port's filter applied by hand: what the subscription must deliver. */
function matching(filter: AllFilter): (event: StoredEvent) => boolean {
  return (event) =>
    (!filter.streamPrefixes || filter.streamPrefixes.some((p) => event.streamId.startsWith(p))) && (!filter.types || filter.types.includes(event.type));
}

const eventCount = (n: number) => (items: AllSubscriptionItem[]) => items.filter((item) => item.kind === 'event').length >= n;

export function describeFilteredSubscribeContract(ctx: ContractContext): void {
  describe('subscribeToAllFiltered', () => {
    /** Every matching event after `from`, read the slow way. */
    async function expectedAfter(from: number, filter: AllFilter): Promise<StoredEvent[]> {
      return (await ctx.store.readAll({ after: from })).filter(matching(filter));
    }

    it('delivers only events of streams with the prefix: backlog, then live while writers append, in order', async () => {
      const prefix = `${streamId('fprefix')}-`;
      const filter = { streamPrefixes: [prefix] };
      const [a, b, other] = [`${prefix}a`, `${prefix}b`, streamId('fprefix-other')];
      const from = await currentPosition(ctx.store);
      await ctx.store.append(a, evs(3), 'no_stream');
      await ctx.store.append(other, evs(2), 'no_stream');
      await ctx.store.append(b, evs(2), 'no_stream');
      const reader = readItems((signal) => ctx.store.subscribeToAllFiltered({ filter, after: from, signal }));
      try {
        await reader.until(eventCount(5));
        // Live: written while the subscription runs, interleaved with events it must skip.
        await Promise.all([trickle(ctx.store, a, 20, 3), trickle(ctx.store, other, 20, 2), trickle(ctx.store, b, 10, 2)]);
        await reader.until(eventCount(35));
      } finally {
        await reader.stop();
      }
      const expected = await expectedAfter(from, filter);
      expect(expected).toHaveLength(35);
      expect(reader.events()).toEqual(expected);
      expectConsistentItems(reader.items, expected, from);
    });

    it('delivers only events of the given types, exactly (not types that merely start with one)', async () => {
      const [wanted, alsoWanted] = [uniqueType('wanted'), uniqueType('also')];
      const filter = { types: [wanted, alsoWanted] };
      const [s, t] = [streamId('ftype'), streamId('ftype-2')];
      const from = await currentPosition(ctx.store);
      await ctx.store.append(s, [ev(wanted, { k: 0 }), ev(`${wanted}.v2`, { k: 1 }), ev('test.other', { k: 2 }), ev(alsoWanted, { k: 3 })], 'no_stream');
      const reader = readItems((signal) => ctx.store.subscribeToAllFiltered({ filter, after: from, signal }));
      try {
        await reader.until(eventCount(2));
        await ctx.store.append(t, [ev(`${alsoWanted}x`, { k: 4 }), ev(wanted, { k: 5 })], 'no_stream');
        await reader.until(eventCount(3));
      } finally {
        await reader.stop();
      }
      expect(reader.events().map((e) => e.data.k)).toEqual([0, 3, 5]);
      expectConsistentItems(reader.items, await expectedAfter(from, filter), from);
    });

    it('with prefix and types, delivers only events matching both', async () => {
      const prefix = `${streamId('fboth')}-`;
      const wanted = uniqueType('both');
      const filter = { streamPrefixes: [prefix], types: [wanted] };
      const from = await currentPosition(ctx.store);
      await ctx.store.append(`${prefix}1`, [ev(wanted, { k: 0 }), ev('test.other', { k: 1 })], 'no_stream');
      await ctx.store.append(streamId('fboth-elsewhere'), [ev(wanted, { k: 2 })], 'no_stream');
      await ctx.store.append(`${prefix}2`, [ev('test.other', { k: 3 }), ev(wanted, { k: 4 })], 'no_stream');
      const reader = readItems((signal) => ctx.store.subscribeToAllFiltered({ filter, after: from, signal }));
      try {
        await reader.until(eventCount(2));
        await ctx.store.append(`${prefix}1`, [ev(wanted, { k: 5 }), ev('test.other', { k: 6 })], 1);
        await reader.until(eventCount(3));
      } finally {
        await reader.stop();
      }
      expect(reader.events().map((e) => e.data.k)).toEqual([0, 4, 5]);
      expectConsistentItems(reader.items, await expectedAfter(from, filter), from);
    });

    it('starts strictly after `after`', async () => {
      const prefix = `${streamId('fafter')}-`;
      const filter = { streamPrefixes: [prefix] };
      const first = await ctx.store.append(`${prefix}x`, evs(2), 'no_stream');
      await ctx.store.append(`${prefix}x`, evs(3, 'test.happened', 2), 1);
      const reader = readItems((signal) => ctx.store.subscribeToAllFiltered({ filter, after: first.position, signal }));
      try {
        await reader.until(eventCount(3));
      } finally {
        await reader.stop();
      }
      expect(reader.events().map((e) => e.revision)).toEqual([2, 3, 4]);
      expectConsistentItems(reader.items, await expectedAfter(first.position, filter), first.position);
    });

    it('sends a checkpoint past the events it skips, so a consumer can move on without a match', async () => {
      const prefix = `${streamId('fcheck')}-`;
      const filter = { streamPrefixes: [prefix] };
      const ignored = streamId('fcheck-ignored');
      const from = await currentPosition(ctx.store);
      await ctx.store.append(`${prefix}m`, evs(1), 'no_stream');
      const reader = readItems((signal) => ctx.store.subscribeToAllFiltered({ filter, after: from, signal }));
      let skipped: number;
      try {
        await reader.until(eventCount(1));
        skipped = (await ctx.store.append(ignored, evs(40), 'no_stream')).position;
        // A server may checkpoint only every so many skipped events (EventStoreDB: per search
        // window), so when it stays quiet, skip more until one covers the first batch.
        await reader.until((items) => items.some((item) => item.kind === 'checkpoint' && item.position >= skipped), {
          idleMs: 300,
          onIdle: () => ctx.store.append(ignored, evs(40), 'any'),
        });
      } finally {
        await reader.stop();
      }
      expect(reader.events()).toHaveLength(1);
      expect(reader.events()[0].streamId).toBe(`${prefix}m`);
      expectConsistentItems(reader.items, await expectedAfter(from, filter), from);
      // The checkpoint is a real cursor: resuming from it skips what it covered and misses nothing after.
      const resumeAt = reader.checkpoints().at(-1)!;
      await ctx.store.append(`${prefix}m`, evs(1, 'test.happened', 1), 0);
      const resumed = readItems((signal) => ctx.store.subscribeToAllFiltered({ filter, after: resumeAt, signal }));
      try {
        await resumed.until(eventCount(1));
      } finally {
        await resumed.stop();
      }
      expect(resumed.events().map((e) => e.revision)).toEqual([1]);
      expectConsistentItems(resumed.items, await expectedAfter(resumeAt, filter), resumeAt);
    });

    it('ends an idle subscription without throwing when its signal aborts, and yields nothing if aborted before', async () => {
      const prefix = `${streamId('fabort')}-`;
      await ctx.store.append(`${prefix}x`, evs(2), 'no_stream');
      const controller = new AbortController();
      const seen: AllSubscriptionItem[] = [];
      const loop = quiet(
        (async () => {
          for await (const item of ctx.store.subscribeToAllFiltered({ filter: { streamPrefixes: [prefix] }, signal: controller.signal })) seen.push(item);
        })(),
      );
      await sleep(50);
      controller.abort();
      await withTimeout(loop, WAIT_MS, 'the filtered subscription to end after abort');
      expect(seen.filter((item) => item.kind === 'event').map((item) => (item as { event: StoredEvent }).event.revision)).toEqual([0, 1]);

      const none: AllSubscriptionItem[] = [];
      await withTimeout(
        (async () => {
          for await (const item of ctx.store.subscribeToAllFiltered({ filter: { streamPrefixes: [prefix] }, signal: AbortSignal.abort() })) none.push(item);
        })(),
        WAIT_MS,
        'a pre-aborted filtered subscription to end',
      );
      expect(none).toEqual([]);
    });
  });
}
