import { backoff, retryDelay } from '../../common/backoff';
import { StoreUnavailableError } from '../../event-store/event-store';

/** How a write rides out a store that cannot take it (docs/operations.md#when-the-store-fails). */
export interface StoreRetry {
  /** How long to keep retrying from the first failure; 0 is a single attempt, Infinity never gives up. */
  retryMs: number;
  /** Ends the retries at once (the process is shutting down). */
  signal?: AbortSignal;
  /** Each failed attempt, for whoever waits on the outcome or reports readiness. */
  onUnavailable?(error: StoreUnavailableError): void;
  /** The write went through after all. */
  onRecovered?(): void;
}

/** Runs `attempt` until it succeeds, retrying a `StoreUnavailableError` with backoff within `retry.retryMs`. */
export async function withStoreRetry<T>(attempt: () => Promise<T>, retry: StoreRetry): Promise<T> {
  const started = Date.now();
  for (let failures = 1; ; failures++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      retry.onUnavailable?.(error);
      const left = started + retry.retryMs - Date.now();
      if (left <= 0 || !(await retryDelay(Math.min(left, backoff(failures)), retry.signal))) throw error;
    }
  }
}
