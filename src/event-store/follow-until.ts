/**
 * Runs a subscription under one signal that fires when either the caller aborts or the store
 * closes; like an abort, a closed store ends the iteration quietly rather than throwing.
 */
export async function* followUntil<T>(
  closing: AbortSignal,
  callerSignal: AbortSignal | undefined,
  run: (stop: AbortSignal) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const sources = [closing, ...(callerSignal ? [callerSignal] : [])];
  if (sources.some((source) => source.aborted)) return;
  for (const source of sources) source.addEventListener('abort', abort, { once: true });
  try {
    yield* run(controller.signal);
  } finally {
    for (const source of sources) source.removeEventListener('abort', abort);
  }
}
