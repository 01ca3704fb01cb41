/** Queued output events per execution before the provider has to wait for the store. */
export const STREAM_BACKLOG = 256;

/**
 * Streamed output (deltas, provider events) need not wait for the disk: it is queued, and what
 * queues up while an append is in flight leaves as one append, so one commit carries many deltas.
 * The provider waits only once `queued` reaches the backlog, which bounds memory per execution.
 * A failure it did not wait for goes to `onLateFailure`: its next output or its completion is refused.
 */
export function backpressured(appended: Promise<void>, queued: number, onLateFailure: (error: unknown) => void): Promise<void> {
  if (queued >= STREAM_BACKLOG) return appended;
  appended.catch(onLateFailure);
  return Promise.resolve();
}
