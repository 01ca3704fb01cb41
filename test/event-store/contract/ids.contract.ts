import { newId } from '../../../src/common/ids';
import { StoredEvent } from '../../../src/event-store/event-store';
import { ContractContext, collect, currentPosition, ev, evs, streamId } from './helpers';

/** Any RFC 4122 UUID, lower-case as both adapters return them. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const ids = (events: StoredEvent[]) => events.map((e) => e.id);

/** Event ids: what a caller retrying an append with an unknown outcome relies on to find its events. */
export function describeIdsContract(ctx: ContractContext): void {
  describe('event ids', () => {
    it('stores the ids events were appended with, and every read path returns them', async () => {
      const from = await currentPosition(ctx.store);
      const s = streamId('ids');
      const chosen = [newId(), newId(), newId()];
      await ctx.store.append(
        s,
        chosen.slice(0, 2).map((id, i) => ({ ...ev('test.ided', { i }), id })),
        'no_stream',
      );
      await ctx.store.append(s, [{ ...ev('test.ided', { i: 2 }), id: chosen[2] }], 1);

      expect(ids(await ctx.store.readStream(s))).toEqual(chosen);
      expect(ids(await ctx.store.readStream(s, { after: 0 }))).toEqual(chosen.slice(1));
      const all = await ctx.store.readAll({ after: from });
      expect(ids(all.filter((e) => e.streamId === s))).toEqual(chosen);
      const ofType = await ctx.store.readAll({ after: from, types: ['test.ided'] });
      expect(ids(ofType.filter((e) => e.streamId === s))).toEqual(chosen);
      expect(ids(await collect((signal) => ctx.store.subscribeToStream(s, { signal }), 3))).toEqual(chosen);
      const viaAll = await collect((signal) => ctx.store.subscribeToAll({ after: from, signal }), 3, { filter: (e) => e.streamId === s });
      expect(ids(viaAll)).toEqual(chosen);
    });

    it('gives an event appended without an id a fresh UUIDv7, distinct per event', async () => {
      const s = streamId('fresh-ids');
      const given = newId();
      await ctx.store.append(s, [ev('test.a'), { ...ev('test.b'), id: given }, ev('test.c')], 'no_stream');
      await ctx.store.append(s, evs(3), 2);
      const read = await ctx.store.readStream(s);
      expect(read[1].id).toBe(given);
      const fresh = ids(read).filter((id) => id !== given);
      expect(fresh).toHaveLength(5);
      for (const id of fresh) expect(id).toMatch(UUID_V7);
      expect(new Set(ids(read)).size).toBe(6);
      // A second stream gets ids of its own too, not a per-stream counter.
      const t = streamId('fresh-ids-other');
      await ctx.store.append(t, evs(2), 'no_stream');
      const other = ids(await ctx.store.readStream(t));
      for (const id of other) expect(id).toMatch(UUID);
      expect(other.some((id) => ids(read).includes(id))).toBe(false);
    });

    it('returns the same id for an event on every read', async () => {
      const s = streamId('stable-ids');
      await ctx.store.append(s, evs(2), 'no_stream');
      expect(ids(await ctx.store.readStream(s))).toEqual(ids(await ctx.store.readStream(s)));
    });
  });
}
