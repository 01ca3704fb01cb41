import autocannon from 'autocannon';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  /** Answers other than the expected status, plus connection errors and timeouts. */
  failures: number;
  p50: number;
  p99: number;
}

/**
 * autocannon: `connections` keep-alive clients sending the same request for `seconds`, with a JSON
 * body when `body` is given (a POST) and none otherwise (a GET).
 */
export async function httpLoad(url: string, options: { connections: number; seconds: number; expect: number; body?: unknown }): Promise<LoadResult> {
  const hasBody = options.body !== undefined;
  const result = await autocannon({
    url,
    method: hasBody ? 'POST' : 'GET',
    headers: hasBody ? { 'content-type': 'application/json' } : {},
    body: hasBody ? JSON.stringify(options.body) : undefined,
    connections: options.connections,
    duration: options.seconds,
  });
  const wrong = Object.entries(result.statusCodeStats ?? {}).reduce(
    (n, [code, s]) => (Number(code) === options.expect ? n : n + (s as { count: number }).count),
    0,
  );
  return {
    requests: result.requests.total,
    seconds: result.duration,
    perSecond: result.requests.total / result.duration,
    failures: wrong + result.errors + result.timeouts,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}
