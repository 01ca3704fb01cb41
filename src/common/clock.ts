let lastMs = Number.NaN;
let lastIso = '';

/**
 * The one place the application reads the wall clock; the domain receives times as values.
 * The string is made once per millisecond: a streaming runner asks for it ~10 times in one, and
 * `toISOString` cost ~1.5 µs a call on the event loop.
 */
export const nowIso = (): string => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
};

/**
 * The wall clock as a dependency, for the decisions a test must move across a boundary without
 * waiting (the month of tenant budgets, docs/api.md#usage-and-budgets): Nest injects it as CLOCK.
 */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };
