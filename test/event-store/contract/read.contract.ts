import { EventMetadata, StoredEvent } from '../../../src/event-store/event-store';
import { newId } from '../../../src/common/ids';
import { ContractContext, ISO_MS, currentPosition, ev, evs, expectStrictlyIncreasing, range, revisions, streamId } from './helpers';

export function describeReadContract(ctx: ContractContext): void {
  describe('readStream', () => {
    it('reads an unknown stream as empty', async () => {
      expect(await ctx.store.readStream(streamId('unknown'))).toEqual([]);
    });

    it('returns events oldest first across appends, with strictly increasing positions', async () => {
      const s = streamId('order');
      await ctx.store.append(s, evs(3, 'test.happened', 0), 'no_stream');
      await ctx.store.append(s, evs(4, 'test.happened', 3), 2);
      await ctx.store.append(s, evs(3, 'test.happened', 7), 6);
      const read = await ctx.store.readStream(s);
      expect(revisions(read)).toEqual(range(0, 10));
      expect(read.map((e) => e.data.i)).toEqual(range(0, 10));
      expect(read.every((e) => e.streamId === s)).toBe(true);
      expectStrictlyIncreasing(read.map((e) => e.position));
    });

    it('reads after a revision, with and without a limit', async () => {
      const s = streamId('after');
      await ctx.store.append(s, evs(10), 'no_stream');
      expect(revisions(await ctx.store.readStream(s, { after: 3, limit: 4 }))).toEqual([4, 5, 6, 7]);
      expect(revisions(await ctx.store.readStream(s, { after: 3 }))).toEqual(range(4, 10));
      expect(revisions(await ctx.store.readStream(s, { limit: 2 }))).toEqual([0, 1]);
      expect(revisions(await ctx.store.readStream(s, { after: 7, limit: 50 }))).toEqual([8, 9]);
      expect(await ctx.store.readStream(s, { after: 9 })).toEqual([]);
      expect(await ctx.store.readStream(s, { after: 42 })).toEqual([]);
    });

    it('pages through a stream with after = the last revision read', async () => {
      const s = streamId('paging');
      await ctx.store.append(s, evs(11), 'no_stream');
      const pages: number[][] = [];
      let after: number | undefined;
      // Bounded, so a cursor that never advances fails instead of spinning forever.
      for (let guard = 0; guard < 10; guard++) {
        const page = await ctx.store.readStream(s, { after, limit: 4 });
        if (page.length === 0) break;
        pages.push(revisions(page));
        after = page[page.length - 1].revision;
      }
      expect(pages).toEqual([
        [0, 1, 2, 3],
        [4, 5, 6, 7],
        [8, 9, 10],
      ]);
    });
  });

  describe('readAll', () => {
    it('reads the global log after a position, in append order across streams', async () => {
      const from = await currentPosition(ctx.store);
      const [a, b] = [streamId('all-a'), streamId('all-b')];
      await ctx.store.append(a, evs(2, 'test.a', 0), 'no_stream');
      await ctx.store.append(b, evs(1, 'test.b', 0), 'no_stream');
      await ctx.store.append(a, evs(1, 'test.a', 2), 1);
      await ctx.store.append(b, evs(2, 'test.b', 1), 0);
      const all = await ctx.store.readAll({ after: from });
      expect(all.every((e) => e.position > from)).toBe(true);
      expectStrictlyIncreasing(all.map((e) => e.position));
      const ours = all.filter((e) => e.streamId === a || e.streamId === b);
      expect(ours.map((e) => `${e.streamId === a ? 'a' : 'b'}${e.revision}`)).toEqual(['a0', 'a1', 'b0', 'a2', 'b1', 'b2']);
      // The same event reads the same through either read.
      const byStream = [...(await ctx.store.readStream(a)), ...(await ctx.store.readStream(b))];
      for (const e of ours) expect(byStream).toContainEqual(e);
    });

    it('honours limit and pages with after = the last position read', async () => {
      const from = await currentPosition(ctx.store);
      const s = streamId('all-page');
      await ctx.store.append(s, evs(7), 'no_stream');
      const full = await ctx.store.readAll({ after: from });
      const firstPage = await ctx.store.readAll({ after: from, limit: 3 });
      expect(firstPage).toHaveLength(3);
      expect(firstPage).toEqual(full.slice(0, 3));
      const secondPage = await ctx.store.readAll({ after: firstPage[2].position, limit: 3 });
      expect(secondPage).toEqual(full.slice(3, 6));
      expect(revisions(full.filter((e) => e.streamId === s))).toEqual(range(0, 7));
    });

    it('reads from the start with a limit', async () => {
      await ctx.store.append(streamId('all-start'), evs(2), 'no_stream');
      const head = await ctx.store.readAll({ limit: 2 });
      expect(head).toHaveLength(2);
      expect(head[0].position).toBeGreaterThan(0);
      expectStrictlyIncreasing(head.map((e) => e.position));
    });

    it('reads only the requested types, with limit counting those and positions staying global', async () => {
      const from = await currentPosition(ctx.store);
      const s = streamId('all-types');
      const kind = `test.kept-${Math.random().toString(36).slice(2)}`;
      await ctx.store.append(
        s,
        [ev('test.skipped', { i: 0 }), ev(kind, { i: 1 }), ev('test.skipped', { i: 2 }), ev(kind, { i: 3 }), ev(kind, { i: 4 })],
        'no_stream',
      );
      const kept = await ctx.store.readAll({ after: from, types: [kind] });
      expect(kept.map((e) => e.revision)).toEqual([1, 3, 4]);
      const full = (await ctx.store.readAll({ after: from })).filter((e) => e.streamId === s);
      expect(kept).toEqual(full.filter((e) => e.type === kind));
      const page = await ctx.store.readAll({ after: kept[0].position, limit: 1, types: [kind] });
      expect(page.map((e) => e.revision)).toEqual([3]);
      expect(await ctx.store.readAll({ after: from, types: [] })).toEqual([]);
    });

    it('reads only later events after the last appended position', async () => {
      const result = await ctx.store.append(streamId('all-end'), evs(1), 'no_stream');
      const after = await ctx.store.readAll({ after: result.position });
      // A shared server may receive others' events meanwhile; none of them may precede ours.
      expect(after.every((e) => e.position > result.position)).toBe(true);
    });
  });

  describe('event envelope', () => {
    it('preserves a given occurredAt exactly', async () => {
      const s = streamId('occurred');
      const occurredAt = '2024-02-29T23:59:58.123Z';
      await ctx.store.append(s, [ev('test.dated', {}, { occurredAt })], 'no_stream');
      const [read] = await ctx.store.readStream(s);
      expect(read.occurredAt).toBe(occurredAt);
    });

    it('defaults occurredAt to the store clock, ISO-8601 UTC with milliseconds', async () => {
      const s = streamId('occurred-default');
      const before = Date.now();
      await ctx.store.append(s, [ev('test.undated')], 'no_stream');
      const after = Date.now();
      const [read] = await ctx.store.readStream(s);
      expect(read.occurredAt).toMatch(ISO_MS);
      // The store's clock may be another machine's; allow modest skew.
      const at = Date.parse(read.occurredAt);
      expect(at).toBeGreaterThanOrEqual(before - 5_000);
      expect(at).toBeLessThanOrEqual(after + 5_000);
    });

    it('round-trips metadata through readStream and readAll', async () => {
      const from = await currentPosition(ctx.store);
      const s = streamId('metadata');
      const full: EventMetadata = {
        tenantId: 'tenant-🙂-ü',
        schemaVersion: 7,
        correlationId: 'corr-0192a6c4-7b1e-7000-8000-000000000001',
        causationId: 'cause-0192a6c4-7b1e-7000-8000-000000000002',
      };
      const nulls: EventMetadata = { tenantId: 't2', schemaVersion: 1, correlationId: null, causationId: null };
      await ctx.store.append(
        s,
        [
          { type: 'test.meta', data: {}, metadata: full },
          { type: 'test.meta', data: {}, metadata: nulls },
        ],
        'no_stream',
      );
      const viaStream = await ctx.store.readStream(s);
      expect(viaStream.map((e) => e.metadata)).toEqual([full, nulls]);
      const viaAll = (await ctx.store.readAll({ after: from })).filter((e) => e.streamId === s);
      expect(viaAll.map((e) => e.metadata)).toEqual([full, nulls]);
    });

    it('round-trips a ~500 KB payload', async () => {
      const s = streamId('large');
      const data = {
        text: 'lorem ipsum dolor sit amet '.repeat(14_000),
        items: range(0, 2_000).map((i) => ({ i, ok: i % 2 === 0, v: i / 8, tag: null })),
        nested: { deep: { deeper: { deepest: [[], {}, [1, [2, [3]]]] } } },
      };
      expect(JSON.stringify(data).length).toBeGreaterThan(450_000);
      await ctx.store.append(s, [ev('test.large', data)], 'no_stream');
      const [read] = await ctx.store.readStream(s);
      expect(read.data).toEqual(data);
    });

    it('round-trips unicode in data, keys and types', async () => {
      const s = streamId('unicode');
      const data = {
        emoji: '👩‍👩‍👧‍👦 🚀 🏳️‍🌈 👍🏽',
        cjk: '漢字かなカナ 한국어 中文',
        combining: 'e\u0301 a\u0308 n\u0303 Z͑ͫ̓ͪ̂ͫ̽͏̴̙̤̞͉͚̯̞̠͍',
        rtl: 'مرحبا بالعالم שלום',
        escapes: 'quote " backslash \\ newline \n tab \t cr \r',
        separators: 'line\u2028para\u2029bom\ufeffend',
        astral: '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈',
        '键🔑': ['ключ', 'κλειδί'],
      };
      const type = 'test.ünïcødé.事件';
      await ctx.store.append(s, [ev(type, data)], 'no_stream');
      const [read] = await ctx.store.readStream(s);
      expect(read.type).toBe(type);
      expect(read.data).toEqual(data);
      expect((read.data.emoji as string).length).toBe(data.emoji.length);
    });

    it('returns exactly the StoredEvent fields', async () => {
      const s = streamId('shape');
      const id = newId();
      await ctx.store.append(s, [{ ...ev('test.shaped', { x: 1 }, { occurredAt: '2025-01-01T00:00:00.000Z' }), id }], 'no_stream');
      const [read] = await ctx.store.readStream(s);
      const expected: Omit<StoredEvent, 'position'> = {
        id,
        streamId: s,
        revision: 0,
        type: 'test.shaped',
        data: { x: 1 },
        metadata: { tenantId: 'tenant-contract', schemaVersion: 1, correlationId: null, causationId: null },
        occurredAt: '2025-01-01T00:00:00.000Z',
      };
      expect(read).toEqual({ ...expected, position: expect.any(Number) });
      expect(Object.keys(read).sort()).toEqual(['data', 'id', 'metadata', 'occurredAt', 'position', 'revision', 'streamId', 'type']);
      expect(Number.isSafeInteger(read.position)).toBe(true);
    });
  });
}
