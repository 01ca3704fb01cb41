import { ContractContext, evs, streamId } from './helpers';

/** streamHead: the cheap "where is this stream" a caller needs before choosing an expected revision. */
export function describeStreamHeadContract(ctx: ContractContext): void {
  describe('streamHead', () => {
    it('is null for a stream that does not exist', async () => {
      expect(await ctx.store.streamHead(streamId('head-unknown'))).toBeNull();
    });

    it('is 0 for a stream of one event', async () => {
      const s = streamId('head-one');
      await ctx.store.append(s, evs(1), 'no_stream');
      expect(await ctx.store.streamHead(s)).toBe(0);
    });

    it('follows the last revision across appends, and ignores streams whose ids extend it', async () => {
      const s = streamId('head-many');
      await ctx.store.append(s, evs(3), 'no_stream');
      expect(await ctx.store.streamHead(s)).toBe(2);
      // Same prefix, longer id, more events: must not leak into the head of `s`.
      await ctx.store.append(`${s}-longer`, evs(9), 'no_stream');
      const result = await ctx.store.append(s, evs(4), 2);
      expect(await ctx.store.streamHead(s)).toBe(6);
      expect(await ctx.store.streamHead(s)).toBe(result.nextRevision);
      expect(await ctx.store.streamHead(`${s}-longer`)).toBe(8);
      expect((await ctx.store.readStream(s)).at(-1)?.revision).toBe(6);
    });
  });

  describe('lastEvent', () => {
    it('is null for a stream that does not exist', async () => {
      expect(await ctx.store.lastEvent(streamId('last-unknown'))).toBeNull();
    });

    it('is the event at the head, exactly as readStream returns it, and ignores streams whose ids extend it', async () => {
      const s = streamId('last-many');
      await ctx.store.append(s, evs(3), 'no_stream');
      expect((await ctx.store.lastEvent(s))?.data).toEqual({ i: 2 });
      await ctx.store.append(`${s}-longer`, evs(9, 'test.longer'), 'no_stream');
      await ctx.store.append(s, evs(2, 'test.happened', 3), 2);
      const last = await ctx.store.lastEvent(s);
      expect(last).toEqual((await ctx.store.readStream(s)).at(-1));
      expect(last).toMatchObject({ streamId: s, revision: 4, type: 'test.happened', data: { i: 4 } });
    });
  });
}
