import { checkpointToNumber, matcherOf } from './filtered-subscription';

describe('filtered $all subscription helpers', () => {
  const event = (streamId: string, type: string) => ({ streamId, type });

  it('matches every given part of the filter, types exactly (the server only matches type prefixes)', () => {
    const both = matcherOf({ streamPrefixes: ['execution-', 'conversation-'], types: ['run.queued'] });
    expect(both(event('execution-1', 'run.queued'))).toBe(true);
    expect(both(event('conversation-1', 'run.queued'))).toBe(true);
    expect(both(event('execution-1', 'run.queued.v2'))).toBe(false);
    expect(both(event('idempotency-1', 'run.queued'))).toBe(false);
    expect(matcherOf({})(event('anything', 'x'))).toBe(true);
    expect(matcherOf({ types: ['a'] })(event('s', 'a'))).toBe(true);
  });

  it('matches nothing for an empty list, as SQLite does', () => {
    expect(matcherOf({ streamPrefixes: [] })(event('execution-1', 'x'))).toBe(false);
    expect(matcherOf({ types: [] })(event('execution-1', 'x'))).toBe(false);
  });

  it('turns a checkpoint into a position that never claims an event it did not cover', () => {
    // (1000, 1000) may be where the server's next read starts, i.e. an event not yet delivered.
    expect(checkpointToNumber({ commit: 1000n, prepare: 1000n })).toBe(999);
    expect(checkpointToNumber({ commit: 1000n, prepare: 900n })).toBe(999);
    // (1000, 1000) lies strictly before (1000, 1200).
    expect(checkpointToNumber({ commit: 1000n, prepare: 1200n })).toBe(1000);
    expect(() => checkpointToNumber({ commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n })).toThrow(/cannot be a port position/);
  });
});
