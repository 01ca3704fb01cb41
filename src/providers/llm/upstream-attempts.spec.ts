import { ProviderFailure } from '../provider';
import { backoffMs, RunRefusal, withRetries } from './upstream-attempts';
import { describeUpstreamError, retryAfterMs } from './upstream-errors';

const retries = { max: 2, initialDelayMs: 100, maxDelayMs: 1000 };
const timeouts = { requestMs: 5000, idleMs: 5000 };
const httpError = (status: number, headers: Record<string, string> = {}, body?: object) =>
  Object.assign(new Error(`${status} raw message with sk-secret`), { status, headers: new Headers(headers), error: body });

describe('retry-after', () => {
  it('reads seconds, an HTTP date and retry-after-ms; nothing without headers', () => {
    expect(retryAfterMs(httpError(429, { 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(httpError(429, { 'retry-after-ms': '150', 'retry-after': '9' }))).toBe(150);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(httpError(429, { 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(httpError(429, { 'retry-after': 'soon' }))).toBeNull();
    expect(retryAfterMs(new Error('x'))).toBeNull();
  });
});

describe('backoff', () => {
  it('doubles up to the cap, with half of each wait random', () => {
    expect([0, 1, 2, 3, 4].map((n) => backoffMs(n, retries, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([0, 1, 2, 3, 4].map((n) => backoffMs(n, retries, () => 1))).toEqual([100, 200, 400, 800, 1000]);
  });
});

describe('describeUpstreamError', () => {
  it('names the status and the API error type, never the SDK message', () => {
    const message = describeUpstreamError(httpError(401, {}, { error: { type: 'authentication_error', message: 'bad key sk-secret' } }));
    expect(message).toBe('upstream answered HTTP 401 (authentication_error)');
    expect(describeUpstreamError(Object.assign(new TypeError('terminated'), { cause: { code: 'UND_ERR_SOCKET' } }))).toBe(
      'upstream connection failed (UND_ERR_SOCKET)',
    );
    expect(describeUpstreamError(new RangeError('sk-secret'))).toBe('upstream request failed (RangeError)');
  });
});

describe('withRetries', () => {
  const signal = new AbortController().signal;

  it('retries 429/5xx before any output, then gives up naming the status and the retries', async () => {
    let calls = 0;
    const attempt = async () => {
      calls++;
      throw httpError(503, { 'retry-after': '0' });
    };
    await expect(withRetries(attempt, { signal, timeouts, retries })).rejects.toEqual(
      new ProviderFailure('PROVIDER_ERROR', 'upstream answered HTTP 503 after 2 retries'),
    );
    expect(calls).toBe(3);
  });

  it('never retries once the request emitted output', async () => {
    let calls = 0;
    const failing = withRetries(
      async (_guard, progress) => {
        calls++;
        progress.emitted = true;
        throw httpError(500);
      },
      { signal, timeouts, retries },
    );
    await expect(failing).rejects.toThrow('upstream answered HTTP 500');
    expect(calls).toBe(1);
  });

  it("passes the run's own refusal through untouched", async () => {
    const refusal = new RunRefusal(new Error('stopped'));
    await expect(withRetries(async () => Promise.reject(refusal), { signal, timeouts, retries })).rejects.toBe(refusal);
  });

  it('a request that outlives its timeout fails with that timeout', async () => {
    const slow = withRetries((guard) => new Promise((_r, reject) => guard.signal.addEventListener('abort', () => reject(new Error('aborted')))), {
      signal,
      timeouts: { requestMs: 30, idleMs: 5000 },
      retries,
    });
    await expect(slow).rejects.toEqual(new ProviderFailure('PROVIDER_ERROR', 'upstream request took over 30 ms'));
  });
});
