import { StoredRow } from '../stored-row';
import { StreamHeads } from './stream-heads';

const row = (streamId: string, revision: number, data = '{}') =>
  new StoredRow(
    `id-${streamId}-${revision}`,
    streamId,
    revision,
    revision + 1,
    'test.e',
    data,
    { tenantId: 't', schemaVersion: 1 } as never,
    '2026-12-06T00:00:00.000Z',
  );

describe('StreamHeads', () => {
  it('keeps the newest event offered for each stream, never an older one', () => {
    const heads = new StreamHeads();
    heads.offer(row('s', 3));
    heads.offer(row('s', 2));
    expect(heads.get('s')?.revision).toBe(3);
    heads.offer(row('s', 4));
    expect(heads.get('s')?.revision).toBe(4);
  });

  it('a newer event too large to keep removes the entry instead of leaving the older one as the head', () => {
    const heads = new StreamHeads();
    heads.offer(row('s', 0));
    heads.offer(row('s', 1, JSON.stringify({ config: 'x'.repeat(20_000) })));
    expect(heads.get('s')).toBeUndefined();
  });

  it('keeps only events that carry their stored text, and forgets everything on clear', () => {
    const heads = new StreamHeads();
    heads.offer({ ...row('plain', 0), data: {} });
    expect(heads.get('plain')).toBeUndefined();
    heads.offer(row('s', 0));
    heads.clear();
    expect(heads.get('s')).toBeUndefined();
  });

  it('holds a bounded number of streams, dropping the one offered longest ago', () => {
    const heads = new StreamHeads();
    for (let i = 0; i <= 16_384; i++) heads.offer(row(`s${i}`, 0));
    expect(heads.get('s0')).toBeUndefined();
    expect(heads.get('s1')?.revision).toBe(0);
    expect(heads.get('s16384')?.revision).toBe(0);
  });
});
