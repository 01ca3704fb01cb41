/**
 * When the next attempt goes (docs/webhooks.md#retries): the Standard Webhooks schedule, one
 * entry per attempt (the first is the first attempt's delay), `Retry-After` on 429 and 503
 * taking the entry's place. Null: that was the last attempt.
 */
export const STANDARD_RETRY_SCHEDULE_MS = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];

/** A `Retry-After` is honoured up to a day; longer waits are cut to that. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

export function nextAttemptDelay(schedule: readonly number[], attemptsMade: number, retryAfterMs: number | null): number | null {
  if (attemptsMade >= schedule.length) return null;
  return retryAfterMs ?? schedule[attemptsMade];
}

/** `Retry-After` as seconds or an HTTP date (RFC 9110), in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | null {
  if (!value) return null;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return null;
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}

/** A 2xx is delivered; anything else is tried again, 410 Gone ends the endpoint. */
export type ResponseVerdict = 'delivered' | 'retry' | 'gone';

export const verdictOf = (status: number | null): ResponseVerdict =>
  status !== null && status >= 200 && status < 300 ? 'delivered' : status === 410 ? 'gone' : 'retry';
