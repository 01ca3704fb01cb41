import { MAX_EVENTS_PER_TRANSACTION, MAX_TRANSACTIONS, PositionSpaceExhaustedError, firstPositionOf } from './position';

describe('positions from transaction ids', () => {
  it('packs the transaction (counted from the base) and leaves room for 8,192 events in it', () => {
    expect(MAX_EVENTS_PER_TRANSACTION).toBe(8192);
    expect(firstPositionOf('1001', 1000n)).toBe(8192);
    expect(firstPositionOf('1002', 1000n)).toBe(2 * 8192);
    // Epoch-extended xid8 values above 2^32 work the same.
    expect(firstPositionOf(String(2n ** 32n + 5n), 2n ** 32n)).toBe(5 * 8192);
  });

  it('orders positions as (transaction, index): the last event of a transaction sits below the first of the next', () => {
    const last = firstPositionOf('5000', 10n) + MAX_EVENTS_PER_TRANSACTION - 1;
    expect(last).toBeLessThan(firstPositionOf('5001', 10n));
  });

  it('stays a safe integer up to its bound and refuses to pass it', () => {
    const base = 123n;
    const highest = firstPositionOf(String(base + BigInt(MAX_TRANSACTIONS) - 1n), base) + MAX_EVENTS_PER_TRANSACTION - 1;
    expect(Number.isSafeInteger(highest)).toBe(true);
    expect(highest).toBe(2 ** 53 - 1);
    expect(() => firstPositionOf(String(base + BigInt(MAX_TRANSACTIONS)), base)).toThrow(PositionSpaceExhaustedError);
    expect(() => firstPositionOf(String(base), base)).toThrow(PositionSpaceExhaustedError);
  });
});
