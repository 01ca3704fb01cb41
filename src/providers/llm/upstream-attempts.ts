import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderFailure } from '../provider';
import { RetrySettings } from '../config/provider-settings';
import { RequestGuard } from './request-guard';
import { describeUpstreamError, isRetryableStatus, retryAfterMs, statusOf } from './upstream-errors';

/**
 * An error the run itself raised (the execution stopped taking output, the store refused it):
 * wrapped while it crosses the upstream code so that it is never mistaken for, or retried as,
 * an upstream failure; the provider unwraps it before the runner sees it.
 */
export class RunRefusal extends Error {
  constructor(readonly refusal: unknown) {
    super('the run refused provider output');
  }
}

/** What one upstream request has done so far: once it emitted anything it is never retried. */
export interface AttemptProgress {
  emitted: boolean;
}

export interface AttemptOptions {
  signal: AbortSignal;
  timeouts: { requestMs: number; idleMs: number };
  retries: RetrySettings;
  random?: () => number;
}

/** Exponential backoff with "equal jitter": half fixed, half random, capped. */
export function backoffMs(retry: number, retries: RetrySettings, random: () => number = Math.random): number {
  const ceiling = Math.min(retries.maxDelayMs, retries.initialDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

const failure = (message: string) => new ProviderFailure('PROVIDER_ERROR', message);
const retried = (n: number) => (n === 0 ? '' : ` after ${n} ${n === 1 ? 'retry' : 'retries'}`);

/**
 * Runs one upstream request under its guard, retrying it while it fails with 429/5xx before its
 * first emitted output, up to `retries.max` times, waiting Retry-After when the upstream gives
 * one (and giving up when that is longer than `retries.maxDelayMs`), else backing off with jitter.
 * Every other failure, and any failure after output, becomes ProviderFailure PROVIDER_ERROR.
 */
export async function withRetries<T>(attempt: (guard: RequestGuard, progress: AttemptProgress) => Promise<T>, options: AttemptOptions): Promise<T> {
  const { retries } = options;
  for (let retry = 0; ; retry++) {
    const guard = new RequestGuard(options.signal, options.timeouts);
    const progress: AttemptProgress = { emitted: false };
    try {
      // The attempt checks its guard right after its stream ends (TurnOutput.finish): what it
      // does after that, with the whole response in hand, is no longer up to a timeout.
      return await attempt(guard, progress);
    } catch (error) {
      // A cancel, or the run's own refusal: not ours to describe or retry.
      if (error instanceof RunRefusal || options.signal.aborted) throw error;
      const timeout = guard.timedOut;
      if (timeout) throw failure(`${timeout.message}${retried(retry)}`);
      if (progress.emitted || !isRetryableStatus(statusOf(error))) throw failure(`${describeUpstreamError(error)}${retried(retry)}`);
      if (retry >= retries.max) throw failure(`${describeUpstreamError(error)}${retried(retry)}`);
      const asked = retryAfterMs(error);
      if (asked !== null && asked > retries.maxDelayMs) {
        throw failure(`${describeUpstreamError(error)}${retried(retry)}; it asked to wait ${Math.ceil(asked / 1000)} s, over retries.maxDelayMs`);
      }
      guard.dispose();
      await sleep(asked ?? backoffMs(retry, retries, options.random), undefined, { signal: options.signal });
    } finally {
      guard.dispose();
    }
  }
}
