import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { eventually, OpenStream, openStream } from './stream-client';

/**
 * At most SSE_MAX_STREAMS_PER_TENANT open event streams per tenant, counted
 * across the execution event stream and the audit feed; one more is 429 RATE_LIMITED with
 * Retry-After, as JSON (decided before the response becomes a stream).
 */
const ACME = { authorization: 'Bearer acme-key-0123456789abc' };
const GLOBEX = { authorization: 'Bearer globex-key-0123456789abc' };

describe('cap on open SSE streams per tenant', () => {
  const app = useApp({ env: { API_KEYS: 'acme:acme-key-0123456789abc,globex:globex-key-0123456789abc', SSE_MAX_STREAMS_PER_TENANT: '2' } });
  const open: OpenStream[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  /** An execution that waits 30 s, so its event stream stays open. */
  const slowExecution = async (who: Record<string, string>) => {
    const conversationId = (await api(app.baseUrl, 'POST', '/v1/conversations', {}, who)).body.id;
    const res = await api(
      app.baseUrl,
      'POST',
      '/v1/executions',
      { conversationId, provider: 'scripted', input: { text: 'x' }, config: { script: [{ type: 'delay', ms: 30000 }] } },
      who,
    );
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const stream = async (path: string, who: Record<string, string>) => {
    const s = await openStream(app.baseUrl, path, who);
    open.push(s);
    return s;
  };
  const cancelAfter = (id: string, who: Record<string, string>) => api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`, {}, who);

  it('counts both SSE routes together, answers the next one 429 with Retry-After, and leaves other tenants alone', async () => {
    const execution = await slowExecution(ACME);
    expect((await stream(`/v1/executions/${execution}/events`, ACME)).status).toBe(200);
    expect((await stream('/v1/events', ACME)).status).toBe(200);

    for (const path of ['/v1/events', `/v1/executions/${execution}/events`]) {
      const refused = await stream(path, ACME);
      expectError({ status: refused.status, headers: refused.headers, text: refused.text, body: JSON.parse(refused.text) }, 429, 'RATE_LIMITED');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // JSON requests on the same routes are not streams: not capped.
    expect((await api(app.baseUrl, 'GET', '/v1/events', undefined, ACME)).status).toBe(200);
    expect((await api(app.baseUrl, 'GET', `/v1/executions/${execution}/events`, undefined, ACME)).status).toBe(200);
    // Another tenant has its own allowance.
    expect((await stream('/v1/events', GLOBEX)).status).toBe(200);
    expect((await stream('/v1/events', GLOBEX)).status).toBe(200);
    expect((await stream('/v1/events', GLOBEX)).status).toBe(429);
    await cancelAfter(execution, ACME);
  });

  it('a closed stream frees its place', async () => {
    const first = await stream('/v1/events', ACME);
    await stream('/v1/events', ACME);
    expect((await stream('/v1/events', ACME)).status).toBe(429);
    await first.close();
    let next: OpenStream | undefined;
    await eventually(async () => {
      next = await stream('/v1/events', ACME);
      return next.status === 200;
    });
    expect(next!.status).toBe(200);
  });

  it('a stream that ends by itself (terminal event) frees its place too, and a finished run answers 204 without counting', async () => {
    const execution = await slowExecution(ACME);
    const s1 = await stream(`/v1/executions/${execution}/events`, ACME);
    const s2 = await stream(`/v1/executions/${execution}/events`, ACME);
    expect([s1.status, s2.status]).toEqual([200, 200]);
    expect((await cancelAfter(execution, ACME)).status).toBe(200);
    await eventually(async () => {
      const s = await stream('/v1/events', ACME);
      return s.status === 200;
    });
    const ended = await stream(`/v1/executions/${execution}/events?after=1000`, ACME);
    expect(ended.status).toBe(204);
  });
});

describe('default cap', () => {
  const app = useApp();

  it('is 100 streams per tenant', async () => {
    const streams = [];
    for (let i = 0; i < 100; i++) streams.push(await openStream(app.baseUrl, '/v1/events'));
    try {
      expect(streams.every((s) => s.status === 200)).toBe(true);
      const refused = await openStream(app.baseUrl, '/v1/events');
      expect(refused.status).toBe(429);
      expect(JSON.parse(refused.text).error.code).toBe('RATE_LIMITED');
    } finally {
      await Promise.all(streams.map((s) => s.close()));
    }
  });
});
