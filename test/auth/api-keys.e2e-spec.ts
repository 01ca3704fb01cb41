import * as http from 'node:http';
import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/** docs/api.md#authentication-and-tenants and docs/api.md#conventions: API_KEYS turns authentication on for every request, checked before anything else. */
const KEYS = { acme1: 'acme-key-0001-0123456789', acme2: 'acme-key-0002-0123456789', globex: 'globex-key-9999-0123456789' };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

describe('API keys (docs/api.md#authentication-and-tenants)', () => {
  // These cases send more bad keys than one address's failure budget (see failed-auth-limit.e2e-spec.ts).
  const app = useApp({ env: { API_KEYS: `acme:${KEYS.acme1}, globex:${KEYS.globex},acme:${KEYS.acme2}`, AUTH_FAILURES_PER_MINUTE: '0' } });

  const routes: [string, string][] = [
    ['GET', '/v1/runtime'],
    ['GET', '/v1/providers'],
    ['GET', '/v1/providers/scripted'],
    ['POST', '/v1/conversations'],
    ['GET', '/v1/conversations/x'],
    ['POST', '/v1/executions'],
    ['GET', '/v1/executions/x'],
    ['GET', '/v1/executions/x/events'],
    ['GET', '/v1/executions/x/actions'],
    ['POST', '/v1/executions/x/actions/y:respond'],
    ['GET', '/v1/executions/x/artifacts'],
    ['POST', '/v1/executions/x:cancel'],
    // Unknown routes too: whether a route exists is not for anonymous callers to learn.
    ['GET', '/'],
    ['GET', '/v1/nope'],
    ['DELETE', '/v1/runtime'],
    ['POST', '/v1/executions/x:explode'],
  ];

  it.each(routes)('%s %s without a key is 401 UNAUTHENTICATED with WWW-Authenticate', async (method, path) => {
    const res = await api(app.baseUrl, method, path);
    expectError(res, 401, 'UNAUTHENTICATED');
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="runledger"/);
  });

  it.each([
    ['a wrong key', 'Bearer nope'],
    ['a key with an extra character', `Bearer ${KEYS.acme1}x`],
    ['a prefix of a key', `Bearer ${KEYS.acme1.slice(0, -1)}`],
    ['a key in another case', `Bearer ${KEYS.acme1.toUpperCase()}`],
    ['another scheme', `Basic ${KEYS.acme1}`],
    ['the key without a scheme', KEYS.acme1],
    ['the scheme without a token', 'Bearer'],
    ['the scheme and a space', 'Bearer '],
    ['no space after the scheme', `Bearer${KEYS.acme1}`],
    ['two tokens', `Bearer ${KEYS.acme1} ${KEYS.acme2}`],
    ['tenant:key as the token', `Bearer acme:${KEYS.acme1}`],
  ])('%s is 401', async (_, authorization) => {
    const res = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, { authorization });
    expectError(res, 401, 'UNAUTHENTICATED');
    expect(res.text).not.toContain(KEYS.acme1);
  });

  it.each(['Bearer', 'bearer', 'BEARER', 'bEaReR'])('the scheme is case-insensitive (%s)', async (scheme) => {
    expect((await api(app.baseUrl, 'GET', '/v1/runtime', undefined, { authorization: `${scheme} ${KEYS.acme1}` })).status).toBe(200);
  });

  it('every key of a tenant acts for that tenant', async () => {
    const created = await api(app.baseUrl, 'POST', '/v1/conversations', { title: 'shared' }, bearer(KEYS.acme1));
    expect(created.status).toBe(201);
    const read = await api(app.baseUrl, 'GET', `/v1/conversations/${created.body.id}`, undefined, bearer(KEYS.acme2));
    expect(read.status).toBe(200);
    expectError(await api(app.baseUrl, 'GET', `/v1/conversations/${created.body.id}`, undefined, bearer(KEYS.globex)), 404, 'NOT_FOUND');
  });

  describe('401 comes before every other check (docs/api.md#conventions)', () => {
    it('before 415, 413 and malformed JSON', async () => {
      expectError(await api(app.baseUrl, 'POST', '/v1/conversations', 'hello', { 'content-type': 'text/plain' }), 401, 'UNAUTHENTICATED');
      expectError(await api(app.baseUrl, 'POST', '/v1/conversations', 'x'.repeat(2 * 1024 * 1024)), 401, 'UNAUTHENTICATED');
      expectError(await api(app.baseUrl, 'POST', '/v1/conversations', '{"title":'), 401, 'UNAUTHENTICATED');
    });

    it('before query and body validation, and before lookups', async () => {
      expectError(await api(app.baseUrl, 'GET', '/v1/runtime?x=1'), 401, 'UNAUTHENTICATED');
      expectError(await api(app.baseUrl, 'POST', '/v1/executions', { nope: true }), 401, 'UNAUTHENTICATED');
      expectError(
        await api(app.baseUrl, 'GET', '/v1/executions/x/events', undefined, { 'last-event-id': 'bad', accept: 'text/event-stream' }),
        401,
        'UNAUTHENTICATED',
      );
    });

    it('before a malformed percent-encoding in the path, which Fastify rejects before any hook', async () => {
      expectError(await api(app.baseUrl, 'GET', '/v1/conversations/%E0%A4%A'), 401, 'UNAUTHENTICATED');
      expectError(await api(app.baseUrl, 'GET', '/v1/conversations/%E0%A4%A', undefined, bearer(KEYS.acme1)), 400, 'VALIDATION_ERROR');
    });

    it('before a missing Host header (HTTP/1.1)', async () => {
      const raw = (headers: string) =>
        new Promise<{ status: number; body: string }>((resolve, reject) => {
          const request = http.request({ host: '127.0.0.1', port: new URL(app.baseUrl).port, path: '/v1/runtime', setHost: false, headers: {} });
          if (headers) request.setHeader('authorization', headers);
          request.on('response', (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (c: string) => (body += c));
            response.on('end', () => resolve({ status: response.statusCode!, body }));
          });
          request.on('error', reject);
          request.end();
        });
      const anonymous = await raw('');
      expect(anonymous.status).toBe(401);
      expect(JSON.parse(anonymous.body).error.code).toBe('UNAUTHENTICATED');
      const keyed = await raw(`Bearer ${KEYS.acme1}`);
      expect(keyed.status).toBe(400);
      expect(JSON.parse(keyed.body)).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'an HTTP/1.1 request needs a Host header' } });
    });
  });
});
