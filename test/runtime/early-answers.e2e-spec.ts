import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { useApp } from '../support/app-harness';

/**
 * A 2 MiB body sent with node:http in 64 KiB writes got EPIPE instead of 413,
 * because the server answered and closed the socket with the rest of the body unread (the kernel
 * then resets the connection, destroying the answer). Every early answer must reach the client.
 * The client runs in a child process: in the server's own event loop it could never race it.
 */
const CLIENT = join(__dirname, 'upload-client.js');
const MiB = 1024 * 1024;
const KEY = 'early-answers-key-0001';
const AUTH = { authorization: `Bearer ${KEY}` };

interface Try {
  status?: number;
  body?: string;
  error?: string;
  written: number;
  ms: number;
}

function upload(url: string, options: Record<string, unknown>): Promise<Try[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, url, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.once('error', reject);
    child.once('exit', () =>
      resolve(
        out
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line)),
      ),
    );
  });
}

/** Counts outcomes, e.g. `{ "413 PAYLOAD_TOO_LARGE": 20 }` or `{ "EPIPE": 3, … }`. */
function outcomes(tries: Try[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const t of tries) {
    const key = t.error ?? `${t.status} ${JSON.parse(t.body!).error?.code}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe('early answers reach every client', () => {
  const app = useApp({ env: { API_KEYS: `acme:${KEY}` } });
  const url = () => `${app.baseUrl}/v1/conversations`;
  const twoMiB = { bytes: 2 * MiB, tries: 20 };

  it('413 in 20 of 20 tries: node:http, Content-Length, 64 KiB writes', async () => {
    expect(outcomes(await upload(url(), { ...twoMiB, headers: AUTH }))).toEqual({ '413 PAYLOAD_TOO_LARGE': 20 });
  });

  it('413 in 20 of 20 tries: node:http, chunked, 64 KiB writes', async () => {
    expect(outcomes(await upload(url(), { ...twoMiB, chunked: true, headers: AUTH }))).toEqual({ '413 PAYLOAD_TOO_LARGE': 20 });
  });

  it('413 in 20 of 20 tries with fetch', async () => {
    const body = Buffer.alloc(2 * MiB, 'a');
    const counts: Record<string, number> = {};
    for (let i = 0; i < 20; i++) {
      const res = await fetch(url(), { method: 'POST', body, headers: { ...AUTH, 'content-type': 'application/json' } });
      const key = `${res.status} ${((await res.json()) as { error?: { code: string } }).error?.code}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    expect(counts).toEqual({ '413 PAYLOAD_TOO_LARGE': 20 });
  });

  it('401 in 20 of 20 tries when the same upload has no key', async () => {
    expect(outcomes(await upload(url(), twoMiB))).toEqual({ '401 UNAUTHENTICATED': 20 });
  });

  it('415 in 20 of 20 tries for a 2 MiB text/plain upload', async () => {
    const headers = { ...AUTH, 'content-type': 'text/plain' };
    expect(outcomes(await upload(url(), { ...twoMiB, headers }))).toEqual({ '415 VALIDATION_ERROR': 20 });
  });

  it('404 for an unknown route, answered without reading the body, reaches the client too', async () => {
    const headers = { ...AUTH, 'content-type': 'text/plain' };
    expect(outcomes(await upload(`${app.baseUrl}/v1/nope`, { ...twoMiB, tries: 5, headers }))).toEqual({ '404 NOT_FOUND': 5 });
  });

  it('the connection stays usable after a drained early answer', async () => {
    const first = await fetch(url(), { method: 'POST', body: Buffer.alloc(2 * MiB, 'a'), headers: { ...AUTH, 'content-type': 'application/json' } });
    expect(first.status).toBe(413);
    await first.text();
    const next = await fetch(url(), { method: 'POST', body: '{}', headers: { ...AUTH, 'content-type': 'application/json' } });
    expect(next.status).toBe(201);
  });

  it('a client that stops sending gets its answer once the time bound passes', async () => {
    const [stalled] = await upload(url(), { bytes: 64 * MiB, stopAfterBytes: 64 * 1024, headers: AUTH });
    expect(stalled).toMatchObject({ status: 413 });
    expect(stalled.ms).toBeGreaterThanOrEqual(4500);
    expect(stalled.ms).toBeLessThan(9000);
  });

  it('draining stops at the byte bound: a client sending on and on is cut off, not read to the end', async () => {
    const [flood] = await upload(url(), { bytes: 256 * MiB, chunkBytes: MiB, headers: AUTH });
    expect(flood.written).toBeLessThan(256 * MiB);
    expect(flood.ms).toBeLessThan(9000);
  });
});
