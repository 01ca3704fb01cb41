import { ContractContext, currentPosition, ev, evs, streamId } from './helpers';

export function describeCountContract(ctx: ContractContext): void {
  describe('countAll', () => {
    it('counts the matching events after a position, at most `limit`, as readAll would find them', async () => {
      const after = await currentPosition(ctx.store);
      const label = `count${Date.now().toString(36)}`;
      const a = streamId(`${label}a`);
      const b = streamId(`${label}b`);
      await ctx.store.append(a, evs(5), 'no_stream');
      await ctx.store.append(b, [ev('test.other'), ev('test.other')], 'no_stream');
      const prefix = a.slice(0, a.indexOf(label) + label.length);
      expect(await ctx.store.countAll({ after, limit: 100, filter: { streamPrefixes: [prefix] } })).toBe(7);
      expect(await ctx.store.countAll({ after, limit: 100, filter: { streamPrefixes: [`${prefix}a`] } })).toBe(5);
      expect(await ctx.store.countAll({ after, limit: 3, filter: { streamPrefixes: [prefix] } })).toBe(3);
      expect(await ctx.store.countAll({ after, limit: 100, filter: { streamPrefixes: [prefix], types: ['test.other'] } })).toBe(2);
      const all = await ctx.store.readAll({ after, filter: { streamPrefixes: [prefix] } });
      expect(await ctx.store.countAll({ after: all[3].position, limit: 100, filter: { streamPrefixes: [prefix] } })).toBe(3);
      expect(await ctx.store.countAll({ after: all[6].position, limit: 100, filter: { streamPrefixes: [prefix] } })).toBe(0);
    });
  });
}
