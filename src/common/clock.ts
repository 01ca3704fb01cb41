/** The one place the application reads the wall clock; the domain receives times as values. */
export const nowIso = (): string => new Date().toISOString();

/**
 * The wall clock as a dependency, for the decisions a test must move across a boundary without
 * waiting (the month of tenant budgets, docs/api.md#usage-and-budgets): Nest injects it as CLOCK.
 */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };
