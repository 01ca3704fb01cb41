import { monthOf, quotaRefusal } from './usage-period';

describe('the month of tenant budgets (docs/api.md#usage-and-budgets)', () => {
  it('is the calendar month in UTC, half-open, across year ends and leap days', () => {
    expect(monthOf(new Date('2026-12-31T23:59:59.999Z'))).toEqual({ from: '2026-12-01T00:00:00.000Z', to: '2027-01-01T00:00:00.000Z' });
    expect(monthOf(new Date('2027-01-01T00:00:00.000Z'))).toEqual({ from: '2027-01-01T00:00:00.000Z', to: '2027-02-01T00:00:00.000Z' });
    expect(monthOf(new Date('2028-02-29T12:00:00.000Z'))).toEqual({ from: '2028-02-01T00:00:00.000Z', to: '2028-03-01T00:00:00.000Z' });
    // Local time zones play no part: 23:30 on the 31st in UTC-1 is already the next month in UTC.
    expect(monthOf(new Date('2026-03-31T23:30:00.000-01:00')).from).toBe('2026-04-01T00:00:00.000Z');
  });

  it('refuses at or over the budget, with the whole seconds left until the month turns (at least 1)', () => {
    const now = new Date('2026-09-30T23:58:30.250Z');
    expect(quotaRefusal({ used: 99, budget: 100 }, now)).toBeNull();
    expect(quotaRefusal({ used: 100, budget: 100 }, now)).toEqual({ retryAfterSeconds: 90 });
    expect(quotaRefusal({ used: 500, budget: 100 }, now)).toEqual({ retryAfterSeconds: 90 });
    expect(quotaRefusal({ used: 100, budget: 100 }, new Date('2026-09-30T23:59:59.999Z'))).toEqual({ retryAfterSeconds: 1 });
  });
});
