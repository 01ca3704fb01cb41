import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/**
 * RATE_LIMIT_PER_MINUTE requests per tenant per minute, then 429 RATE_LIMITED
 * with Retry-After in the envelope. Tenants are counted apart; probes, metrics and docs are free.
 */
const ACME = { authorization: 'Bearer acme-key-0123456789abc' };
const GLOBEX = { authorization: 'Bearer globex-key-0123456789abc' };
const LIMIT = 5;

const burst = async (baseUrl: string, headers: Record<string, string>, n: number, path = '/v1/runtime') => {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await api(baseUrl, 'GET', path, undefined, headers)).status);
  return statuses;
};

describe('per-tenant rate limit (RATE_LIMIT_PER_MINUTE)', () => {
  const app = useApp({ env: { API_KEYS: 'acme:acme-key-0123456789abc,globex:globex-key-0123456789abc', RATE_LIMIT_PER_MINUTE: String(LIMIT) } });

  it('a burst over the limit gets 429 RATE_LIMITED with Retry-After, in the envelope', async () => {
    const first = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, ACME);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(await burst(app.baseUrl, ACME, LIMIT - 1)).toEqual(Array(LIMIT - 1).fill(200));
    const over = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, ACME);
    expectError(over, 429, 'RATE_LIMITED');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    // Every route counts, unknown ones and POSTs too: the answer is 429 before anything else runs.
    expectError(await api(app.baseUrl, 'GET', '/v1/nope', undefined, ACME), 429, 'RATE_LIMITED');
    expectError(await api(app.baseUrl, 'POST', '/v1/conversations', {}, ACME), 429, 'RATE_LIMITED');
  });

  it("one tenant's burst never throttles another", async () => {
    expect(await burst(app.baseUrl, GLOBEX, LIMIT)).toEqual(Array(LIMIT).fill(200));
    expectError(await api(app.baseUrl, 'GET', '/v1/runtime', undefined, GLOBEX), 429, 'RATE_LIMITED');
  });

  it('authentication comes first: a request without a valid key is 401, and counts for no tenant', async () => {
    expectError(await api(app.baseUrl, 'GET', '/v1/runtime'), 401, 'UNAUTHENTICATED');
    expectError(await api(app.baseUrl, 'GET', '/v1/runtime', undefined, { authorization: 'Bearer wrong' }), 401, 'UNAUTHENTICATED');
  });

  it('health probes, metrics and the API document are not limited', async () => {
    for (const path of ['/health/live', '/health/ready', '/metrics', '/docs/json', '/docs']) {
      const statuses = await burst(app.baseUrl, ACME, LIMIT + 2, path);
      expect({ path, statuses }).toEqual({ path, statuses: Array(LIMIT + 2).fill(200) });
    }
  });

  it('the 429 reaches a client still uploading a 2 MiB body, 20 of 20 times (the body is drained)', async () => {
    const tries = await new Promise<{ status?: number; body?: string; error?: string }[]>((resolve, reject) => {
      const options = { bytes: 2 * 1024 * 1024, tries: 20, headers: ACME };
      const child = spawn(
        process.execPath,
        [join(__dirname, '..', 'runtime', 'upload-client.js'), `${app.baseUrl}/v1/conversations`, JSON.stringify(options)],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.once('error', reject);
      child.once('exit', () =>
        resolve(
          out
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line)),
        ),
      );
    });
    const outcomes = tries.map((t) => t.error ?? `${t.status} ${JSON.parse(t.body!).error.code}`);
    expect(outcomes).toEqual(Array(20).fill('429 RATE_LIMITED'));
  });
});

describe('rate limit with auth off', () => {
  const app = useApp({ env: { RATE_LIMIT_PER_MINUTE: '3' } });

  it('counts every caller as the default tenant', async () => {
    expect(await burst(app.baseUrl, {}, 3)).toEqual([200, 200, 200]);
    expectError(await api(app.baseUrl, 'GET', '/v1/providers'), 429, 'RATE_LIMITED');
  });
});

describe('without RATE_LIMIT_PER_MINUTE', () => {
  const app = useApp();

  it('nothing is limited and no rate-limit headers are sent', async () => {
    const statuses = await burst(app.baseUrl, {}, 30);
    expect(statuses).toEqual(Array(30).fill(200));
    expect((await api(app.baseUrl, 'GET', '/v1/runtime')).headers.get('x-ratelimit-limit')).toBeNull();
  });
});
