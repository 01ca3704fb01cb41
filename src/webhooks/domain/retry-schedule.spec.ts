import { nextAttemptDelay, parseRetryAfter, STANDARD_RETRY_SCHEDULE_MS, verdictOf } from './retry-schedule';

describe('the retry schedule (docs/webhooks.md#retries)', () => {
  it('follows the Standard Webhooks schedule and stops after its last entry', () => {
    expect(STANDARD_RETRY_SCHEDULE_MS).toHaveLength(10);
    expect(nextAttemptDelay(STANDARD_RETRY_SCHEDULE_MS, 1, null)).toBe(5_000);
    expect(nextAttemptDelay(STANDARD_RETRY_SCHEDULE_MS, 9, null)).toBe(86_400_000);
    expect(nextAttemptDelay(STANDARD_RETRY_SCHEDULE_MS, 10, null)).toBeNull();
  });

  it('lets Retry-After take the place of the entry, up to a day', () => {
    expect(nextAttemptDelay([0, 5, 5], 1, 30_000)).toBe(30_000);
    expect(nextAttemptDelay([0, 5, 5], 3, 30_000)).toBeNull();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('9999999', now)).toBe(86_400_000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('delivers on 2xx only; 410 ends the endpoint', () => {
    expect([200, 204, 299].map(verdictOf)).toEqual(['delivered', 'delivered', 'delivered']);
    expect([301, 404, 500, null].map(verdictOf)).toEqual(['retry', 'retry', 'retry', 'retry']);
    expect(verdictOf(410)).toBe('gone');
  });
});
