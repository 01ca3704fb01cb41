import { mapped } from './mapped-iterable';

/** A source that records whether it was ended (its finally ran). */
function source(items: number[]) {
  const state = { ended: false, pulled: 0 };
  async function* generate() {
    try {
      for (const item of items) {
        state.pulled++;
        yield item;
      }
    } finally {
      state.ended = true;
    }
  }
  return { state, iterable: generate() };
}

describe('mapped', () => {
  it('maps every item in order and ends with the source', async () => {
    const { state, iterable } = source([1, 2, 3]);
    const seen: number[] = [];
    for await (const item of mapped(iterable, (n) => n * 10)) seen.push(item);
    expect(seen).toEqual([10, 20, 30]);
    expect(state.ended).toBe(true);
  });

  it('ends the source when the consumer breaks', async () => {
    const { state, iterable } = source([1, 2, 3]);
    for await (const item of mapped(iterable, (n) => n)) if (item === 1) break;
    expect(state).toEqual({ ended: true, pulled: 1 });
  });

  it('ends the source and rejects when map throws', async () => {
    const { state, iterable } = source([1, 2, 3]);
    const consume = async () => {
      for await (const item of mapped(iterable, (n) => {
        if (n === 2) throw new Error('bad item');
        return n;
      }))
        void item;
    };
    await expect(consume()).rejects.toThrow('bad item');
    expect(state).toEqual({ ended: true, pulled: 2 });
  });
});
