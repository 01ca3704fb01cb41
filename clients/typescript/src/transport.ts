import { RunledgerError, errorFrom } from './errors';
import { backoffWithJitter, wait } from './wait';

export interface ClientOptions {
  /** The server's origin, e.g. `http://127.0.0.1:3000` (without `/v1`). */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>` when set. */
  apiKey?: string;
  /** Defaults to the platform's `fetch`. */
  fetch?: typeof fetch;
  /** Retries of a request the server refused with 429 or 503, or that a dropped connection lost (safe requests only). Default 3. */
  maxRetries?: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown instead. Default 30 s. */
  maxRetryDelayMs?: number;
  /** The jitter's source, for tests. */
  random?: () => number;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Whether sending it twice is harmless, so a dropped connection may be retried (GETs, starts with a key). */
  safe?: boolean;
}

const RETRY_BASE_MS = 250;

/** One place that speaks HTTP to the server: URLs, the key, JSON, error envelopes and retries. */
export class Transport {
  private readonly fetch: typeof fetch;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;
  readonly random: () => number;
  readonly baseUrl: string;

  constructor(private readonly options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxRetries = options.maxRetries ?? 3;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
    this.random = options.random ?? Math.random;
  }

  url(path: string, query: Query = {}): string {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) url.searchParams.set(name, String(value));
    return url.toString();
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    return { ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}), ...extra };
  }

  /** Opens an SSE stream from `cursor`; the caller reads, retries and closes it. */
  fetchStream(path: string, query: Query | undefined, cursor: number, signal: AbortSignal): Promise<Response> {
    return this.fetch(this.url(path, query), { headers: this.headers({ accept: 'text/event-stream', 'last-event-id': String(cursor) }), signal });
  }

  /** Sends the request, retrying what may be retried; answers the parsed JSON body (undefined for 204) and the response. */
  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ data: T; response: Response }> {
    const response = await this.send(method, path, options);
    const data = (response.status === 204 ? undefined : await response.json()) as T;
    return { data, response };
  }

  /** Sends the request and answers the successful response unread, for streams. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const safe = options.safe ?? method === 'GET';
    const headers = this.headers(options.headers);
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    for (let attempt = 0; ; attempt++) {
      let failure: RunledgerError;
      try {
        const response = await this.fetch(this.url(path, options.query), {
          method,
          headers,
          body: options.body === undefined ? undefined : JSON.stringify(options.body),
          signal: options.signal,
        });
        if (response.ok) return response;
        failure = await errorFrom(response);
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (!safe) throw networkError(error);
        failure = networkError(error);
      }
      const delay = failure.retryAfterMs ?? backoffWithJitter(attempt, RETRY_BASE_MS, this.maxRetryDelayMs, this.random);
      if (!failure.retryable || attempt >= this.maxRetries || delay > this.maxRetryDelayMs) throw failure;
      await wait(delay, options.signal);
    }
  }
}

export function networkError(error: unknown): RunledgerError {
  // fetch says only "fetch failed"; why (ECONNREFUSED, a reset) is in its cause.
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  const message = error instanceof Error ? `${error.message}${cause}` : String(error);
  return new RunledgerError('NETWORK_ERROR', 0, `the request did not reach the server: ${message}`);
}
