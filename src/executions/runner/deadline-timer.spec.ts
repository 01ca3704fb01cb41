import { DeadlineTimers } from './deadline-timer';

/** Jest's fake timers move the wall clock too: a seven-day deadline is tested without waiting for it. */
describe('DeadlineTimers', () => {
  beforeEach(() => jest.useFakeTimers({ now: Date.parse('2026-09-02T10:00:00.000Z') }));
  afterEach(() => jest.useRealTimers());

  it('fires once the wall clock reaches the instant, never before, with that instant', () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    timers.at('2026-09-09T10:00:00.000Z', (now) => fired.push(now));
    jest.advanceTimersByTime(7 * 24 * 3600 * 1000 - 1);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(fired).toEqual(['2026-09-09T10:00:00.000Z']);
    jest.advanceTimersByTime(60_000);
    expect(fired).toHaveLength(1);
  });

  it('an instant already past fires on the next turn, not synchronously', () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    timers.at('2026-09-01T00:00:00.000Z', (now) => fired.push(now));
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(0);
    expect(fired).toEqual(['2026-09-02T10:00:00.000Z']);
  });

  it('a timer that wakes before the wall clock got there waits again', () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    timers.at('2026-09-02T10:00:01.000Z', (now) => fired.push(now));
    // The wall clock steps back while the timer waits: at its wake-up the instant is still ahead.
    jest.advanceTimersByTime(500);
    jest.setSystemTime(Date.parse('2026-09-02T10:00:00.000Z'));
    jest.advanceTimersByTime(500);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(1000);
    expect(fired).toEqual(['2026-09-02T10:00:01.000Z']);
  });

  it('clear() stops every timer, and later ones are not armed', () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    timers.at('2026-09-02T10:00:01.000Z', (now) => fired.push(now));
    timers.clear();
    timers.at('2026-09-02T10:00:02.000Z', (now) => fired.push(now));
    jest.advanceTimersByTime(10_000);
    expect(fired).toEqual([]);
  });
});
