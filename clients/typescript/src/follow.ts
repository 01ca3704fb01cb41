import { RunledgerError, errorFrom } from './errors';
import { parseSse } from './sse';
import { Query, Transport, networkError } from './transport';
import { wait } from './wait';

export interface FollowOptions {
  signal?: AbortSignal;
  /** Called before each reconnect with the error that ended the last connection, e.g. to show progress. */
  onReconnect?: (error: RunledgerError, delayMs: number) => void;
}

interface Stream<T> {
  path: string;
  query?: Query;
  cursor: number;
  /** The cursor an item carries: its sequence, or its position in the feed. */
  cursorOf: (item: T) => number;
  /** The item after which nothing follows, so the stream is done. */
  isLast: (item: T) => boolean;
}

/** The server's `retry:` until it sends one (the binding's streams start with `retry: 1000`). */
const DEFAULT_RETRY_MS = 1000;
const MAX_RECONNECT_DELAY_MS = 30_000;

/**
 * Follows an SSE stream of the API to its end across any number of dropped connections: each
 * reconnect sends `Last-Event-ID` with the last cursor yielded, items at or before it are dropped
 * (so none is yielded twice), and it waits the server's `retry:` doubled per failed attempt, with
 * jitter, so that clients cut off together do not come back together.
 */
export async function* follow<T>(transport: Transport, stream: Stream<T>, options: FollowOptions = {}): AsyncGenerator<T> {
  const { signal } = options;
  let cursor = stream.cursor;
  let retryMs = DEFAULT_RETRY_MS;
  let failures = 0;
  for (;;) {
    const connection = new AbortController();
    const abort = () => connection.abort(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    let ended: RunledgerError;
    try {
      const response = await transport.fetchStream(stream.path, stream.query, cursor, connection.signal);
      if (response.status === 204) return;
      if (!response.ok || response.body === null) {
        ended = await errorFrom(response);
        if (!ended.retryable && response.status < 502) throw ended;
      } else {
        failures = 0;
        for await (const message of parseSse(response.body, { onRetry: (ms) => (retryMs = ms) })) {
          const item = JSON.parse(message.data) as T;
          const at = stream.cursorOf(item);
          if (at <= cursor) continue;
          cursor = at;
          yield item;
          if (stream.isLast(item)) return;
        }
        ended = new RunledgerError('STREAM_ENDED', 0, 'the stream closed before its last event');
      }
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof RunledgerError) throw error;
      ended = networkError(error);
    } finally {
      signal?.removeEventListener('abort', abort);
      connection.abort();
    }
    const base = ended.retryAfterMs ?? retryMs * 2 ** Math.min(failures, 5);
    const delay = Math.min(MAX_RECONNECT_DELAY_MS, Math.round(base * (0.5 + transport.random() / 2)));
    failures++;
    options.onReconnect?.(ended, delay);
    await wait(delay, signal);
  }
}
