/** 50 ms doubling to 1 s: quick over a blip, gentle on a store (or file) that stays down. */
export const backoff = (failures: number): number => Math.min(1000, 50 * 2 ** (failures - 1));

/** Waits `ms`; false when `signal` aborted first. */
export function retryDelay(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
