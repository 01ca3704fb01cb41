import { WrongExpectedRevisionError } from '../../../src/event-store/event-store';
import { ContractContext, ev, evs, expectConflict, expectStrictlyIncreasing, range, revisions, streamId } from './helpers';

export function describeAppendContract(ctx: ContractContext): void {
  describe('append', () => {
    it('creates a stream with no_stream and reports its head revision and global position', async () => {
      const s = streamId('append-new');
      const result = await ctx.store.append(s, [ev('test.created', { a: 1 })], 'no_stream');
      expect(result.nextRevision).toBe(0);
      expect(result.position).toBeGreaterThan(0);
      const read = await ctx.store.readStream(s);
      expect(read).toHaveLength(1);
      expect(read[0]).toMatchObject({ streamId: s, revision: 0, type: 'test.created', data: { a: 1 } });
      // Callers checkpoint on the returned position, so it must be the event's own position.
      expect(read[0].position).toBe(result.position);
    });

    it('appends at an exact revision and with any, moving the head and the position forward', async () => {
      const s = streamId('append-exact');
      const first = await ctx.store.append(s, evs(3), 'no_stream');
      expect(first.nextRevision).toBe(2);
      const second = await ctx.store.append(s, evs(2, 'test.happened', 3), 2);
      expect(second.nextRevision).toBe(4);
      expect(second.position).toBeGreaterThan(first.position);
      const third = await ctx.store.append(s, evs(1, 'test.happened', 5), 'any');
      expect(third.nextRevision).toBe(5);
      expect(third.position).toBeGreaterThan(second.position);
      const read = await ctx.store.readStream(s);
      expect(revisions(read)).toEqual(range(0, 6));
      expect(read.map((e) => e.data.i)).toEqual(range(0, 6));
      expect(read[5].position).toBe(third.position);
    });

    it('creates a missing stream with any', async () => {
      const s = streamId('append-any-new');
      const result = await ctx.store.append(s, evs(2), 'any');
      expect(result.nextRevision).toBe(1);
      expect(revisions(await ctx.store.readStream(s))).toEqual([0, 1]);
    });

    describe('wrong expected revision', () => {
      it('rejects no_stream on an existing stream', async () => {
        const s = streamId('wer-nostream');
        await ctx.store.append(s, evs(1), 'no_stream');
        const error = await expectConflict(ctx.store.append(s, evs(1), 'no_stream'));
        expect(error.streamId).toBe(s);
        expect(error.expected).toBe('no_stream');
        expect([0, undefined]).toContain(error.actual);
      });

      it('rejects a stale exact revision', async () => {
        const s = streamId('wer-stale');
        await ctx.store.append(s, evs(3), 'no_stream');
        const error = await expectConflict(ctx.store.append(s, evs(1), 1));
        expect(error.streamId).toBe(s);
        expect(error.expected).toBe(1);
        expect([2, undefined]).toContain(error.actual);
      });

      it('rejects an exact revision ahead of the head', async () => {
        const s = streamId('wer-ahead');
        await ctx.store.append(s, evs(2), 'no_stream');
        await expectConflict(ctx.store.append(s, evs(1), 5));
      });

      it('rejects an exact revision on a missing stream', async () => {
        const s = streamId('wer-missing');
        const error = await expectConflict(ctx.store.append(s, evs(1), 0));
        expect(error.expected).toBe(0);
        expect([null, undefined]).toContain(error.actual);
        expect(await ctx.store.readStream(s)).toEqual([]);
      });

      it('stores nothing from the rejected append and leaves the stream appendable', async () => {
        const s = streamId('wer-nothing');
        await ctx.store.append(s, evs(2), 'no_stream');
        await expectConflict(ctx.store.append(s, evs(5, 'test.rejected'), 0));
        const read = await ctx.store.readStream(s);
        expect(read.map((e) => e.type)).toEqual(['test.happened', 'test.happened']);
        const next = await ctx.store.append(s, evs(1, 'test.happened', 2), 1);
        expect(next.nextRevision).toBe(2);
      });
    });

    describe('racing appenders', () => {
      it('lets exactly one of 20 appends on the same exact revision win', async () => {
        const s = streamId('race-exact');
        await ctx.store.append(s, [ev('test.seed')], 'no_stream');
        const outcomes = await Promise.allSettled(
          range(0, 20).map((w) => ctx.store.append(s, [ev('test.raced', { w, k: 0 }), ev('test.raced', { w, k: 1 })], 0)),
        );
        const winners = outcomes.flatMap((o, w) => (o.status === 'fulfilled' ? [w] : []));
        expect(winners).toHaveLength(1);
        for (const o of outcomes) {
          if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
        }
        const read = await ctx.store.readStream(s);
        expect(read.map((e) => e.data)).toEqual([{}, { w: winners[0], k: 0 }, { w: winners[0], k: 1 }]);
        expect(revisions(read)).toEqual([0, 1, 2]);
      });

      it('lets exactly one of 20 no_stream appends create the stream', async () => {
        const s = streamId('race-nostream');
        const outcomes = await Promise.allSettled(range(0, 20).map((w) => ctx.store.append(s, [ev('test.claimed', { w })], 'no_stream')));
        const winners = outcomes.flatMap((o, w) => (o.status === 'fulfilled' ? [w] : []));
        expect(winners).toHaveLength(1);
        for (const o of outcomes) {
          if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
        }
        const read = await ctx.store.readStream(s);
        expect(read.map((e) => e.data)).toEqual([{ w: winners[0] }]);
      });

      it('serialises writers that retry on conflict: every event lands once, in a gap-free stream', async () => {
        const s = streamId('race-retry');
        const writers = 5;
        const perWriter = 6;
        const write = async (w: number): Promise<void> => {
          for (let k = 0; k < perWriter; k++) {
            for (;;) {
              const head = (await ctx.store.readStream(s)).length - 1;
              try {
                await ctx.store.append(s, [ev('test.retried', { w, k })], head < 0 ? 'no_stream' : head);
                break;
              } catch (e) {
                if (!(e instanceof WrongExpectedRevisionError)) throw e;
              }
            }
          }
        };
        await Promise.all(range(0, writers).map(write));
        const read = await ctx.store.readStream(s);
        expect(revisions(read)).toEqual(range(0, writers * perWriter));
        for (let w = 0; w < writers; w++) {
          expect(read.filter((e) => e.data.w === w).map((e) => e.data.k)).toEqual(range(0, perWriter));
        }
      });
    });

    describe('batch atomicity', () => {
      it('stores a batch of 50 with consecutive revisions and increasing positions', async () => {
        const s = streamId('batch');
        await ctx.store.append(s, evs(2), 'no_stream');
        const result = await ctx.store.append(s, evs(50, 'test.batched', 2), 1);
        expect(result.nextRevision).toBe(51);
        const read = await ctx.store.readStream(s);
        expect(revisions(read)).toEqual(range(0, 52));
        expect(read.map((e) => e.data.i)).toEqual(range(0, 52));
        expectStrictlyIncreasing(read.map((e) => e.position));
        expect(read[51].position).toBe(result.position);
      });

      it('stores none of a conflicting batch, even when racing a winner', async () => {
        const s = streamId('batch-conflict');
        await ctx.store.append(s, evs(1), 'no_stream');
        const [a, b] = await Promise.allSettled([ctx.store.append(s, evs(10, 'test.a'), 0), ctx.store.append(s, evs(10, 'test.b'), 0)]);
        expect([a.status, b.status].sort()).toEqual(['fulfilled', 'rejected']);
        const winner = a.status === 'fulfilled' ? 'test.a' : 'test.b';
        const read = await ctx.store.readStream(s);
        expect(read).toHaveLength(11);
        expect(read.slice(1).every((e) => e.type === winner)).toBe(true);
      });
    });
  });
}
