/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter: attempt 0 waits up to `base`, each next one up to twice as long, never over `cap`. */
export function backoffWithJitter(attempt: number, base: number, cap: number, random = Math.random): number {
  return Math.round(random() * Math.min(cap, base * 2 ** attempt));
}
