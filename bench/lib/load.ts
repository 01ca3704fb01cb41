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

/** autocannon: `connections` keep-alive clients sending the same JSON POST for `seconds`. */
export async function postLoad(url: string, body: unknown, options: { connections: number; seconds: number; expect: number }): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
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
