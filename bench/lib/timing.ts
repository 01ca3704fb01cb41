import { request } from 'node:http';
import { HttpClient } from './http-client';

/** GET `path` with the client's keep-alive agent, answering the status and the body as text (no parsing). */
export function getText(client: HttpClient, path: string): Promise<{ status: number; text: string }> {
  return new Promise((ok, fail) => {
    const req = request(`${client.baseUrl}${path}`, { agent: client.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end();
  });
}

/** Milliseconds each call of `body` took, run one after another, ascending. */
export async function latencies(count: number, body: (i: number) => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await body(i);
    ms.push(performance.now() - started);
  }
  return ms.sort((a, b) => a - b);
}

/** Runs `a` and `b` alternately `count` times each (so drift hits both alike); answers both latency lists, ascending. */
export async function alternate(count: number, a: (i: number) => Promise<unknown>, b: (i: number) => Promise<unknown>): Promise<[number[], number[]]> {
  const msA: number[] = [];
  const msB: number[] = [];
  for (let i = 0; i < count; i++) {
    for (const [fn, into] of i % 2 === 0
      ? ([
          [a, msA],
          [b, msB],
        ] as const)
      : ([
          [b, msB],
          [a, msA],
        ] as const)) {
      const started = performance.now();
      await fn(i);
      into.push(performance.now() - started);
    }
  }
  return [msA.sort((x, y) => x - y), msB.sort((x, y) => x - y)];
}
