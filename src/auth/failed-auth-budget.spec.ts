import { FailedAuthBudget } from './failed-auth-budget';

describe('FailedAuthBudget', () => {
  let now = 1_000_000;
  const clock = () => now;

  it('refuses an address after its burst until its minute ends', () => {
    const budget = new FailedAuthBudget(3, 100, clock);
    for (let i = 0; i < 3; i++) {
      expect(budget.retryAfter('10.0.0.1')).toBeNull();
      budget.record('10.0.0.1');
    }
    expect(budget.retryAfter('10.0.0.1')).toBe(60);
    expect(budget.retryAfter('10.0.0.2')).toBeNull();
    now += 59_500;
    expect(budget.retryAfter('10.0.0.1')).toBe(1);
    now += 500;
    expect(budget.retryAfter('10.0.0.1')).toBeNull();
  });

  it('keeps at most maxTracked addresses, dropping the one that failed longest ago', () => {
    const budget = new FailedAuthBudget(1, 3, clock);
    for (const address of ['a', 'b', 'c']) budget.record(address);
    budget.record('a');
    budget.record('d');
    expect(budget.tracked).toBe(3);
    expect(budget.retryAfter('b')).toBeNull();
    for (const address of ['a', 'c', 'd']) expect(budget.retryAfter(address)).not.toBeNull();
  });

  it('0 turns it off', () => {
    const budget = new FailedAuthBudget(0, 3, clock);
    for (let i = 0; i < 100; i++) budget.record('a');
    expect(budget.retryAfter('a')).toBeNull();
    expect(budget.tracked).toBe(0);
  });
});
