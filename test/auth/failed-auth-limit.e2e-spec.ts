import { api, RunningApp, startApp, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { AUDIENCE, ISSUER, OidcIssuer, signingKey } from './oidc-issuer';

/**
 * Failed authentications are limited per client address (AUTH_FAILURES_PER_MINUTE): past the
 * burst, 429 RATE_LIMITED with Retry-After instead of 401; valid keys keep working; behind a
 * proxy, TRUST_PROXY decides whether X-Forwarded-For names the client.
 */
const KEY = 'acme-failed-auth-key-0123456789';
const bearer = (token: string, headers: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...headers });
const get = (app: RunningApp, headers: Record<string, string>) => api(app.baseUrl, 'GET', '/v1/runtime', undefined, headers);

function expectRateLimited(res: Awaited<ReturnType<typeof api>>): void {
  expectError(res, 429, 'RATE_LIMITED');
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

describe('failed authentications from one address', () => {
  const app = useApp({ env: { API_KEYS: `acme:${KEY}`, AUTH_FAILURES_PER_MINUTE: '3' } });

  it('answer 401 for the burst, then 429 with Retry-After, while a valid key still passes', async () => {
    for (let i = 0; i < 3; i++) expectError(await get(app, bearer(`wrong-key-${i}-0123456789abcdef`)), 401, 'UNAUTHENTICATED');
    expectRateLimited(await get(app, bearer('wrong-key-3-0123456789abcdef')));
    // No header at all is a failed attempt too, and so is the key sent in another scheme.
    expectRateLimited(await get(app, {}));
    expectRateLimited(await get(app, { authorization: `Basic ${KEY}` }));
    expect((await get(app, bearer(KEY))).status).toBe(200);
    // Unknown routes are covered like any other: the limit runs where authentication does.
    expectRateLimited(await api(app.baseUrl, 'GET', '/v1/nope', undefined, bearer('wrong')));
    expect((await api(app.baseUrl, 'GET', '/health/ready')).status).toBe(200);
  });

  it('X-Forwarded-For does not let a client pick another address when TRUST_PROXY is off', async () => {
    expectRateLimited(await get(app, bearer('wrong', { 'x-forwarded-for': '203.0.113.9' })));
  });
});

describe('TRUST_PROXY behind a load balancer', () => {
  const app = useApp({ env: { API_KEYS: `acme:${KEY}`, AUTH_FAILURES_PER_MINUTE: '2', TRUST_PROXY: '127.0.0.1' } });

  it('counts each client named by X-Forwarded-For on its own', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    for (let i = 0; i < 2; i++) expectError(await get(app, bearer('wrong', from('203.0.113.1'))), 401, 'UNAUTHENTICATED');
    expectRateLimited(await get(app, bearer('wrong', from('203.0.113.1'))));
    expectError(await get(app, bearer('wrong', from('203.0.113.2'))), 401, 'UNAUTHENTICATED');
    expect((await get(app, bearer(KEY, from('203.0.113.1')))).status).toBe(200);
  });
});

describe('AUTH_FAILURES_PER_MINUTE=0', () => {
  const app = useApp({ env: { API_KEYS: `acme:${KEY}`, AUTH_FAILURES_PER_MINUTE: '0' } });

  it('turns the limit off', async () => {
    for (let i = 0; i < 30; i++) expectError(await get(app, bearer('wrong')), 401, 'UNAUTHENTICATED');
  });
});

describe('with OIDC', () => {
  const issuer = new OidcIssuer([]);
  let app: RunningApp;
  beforeAll(async () => {
    issuer.keys = [await signingKey('rsa-1')];
    await issuer.start();
    app = await startApp({
      env: {
        OIDC_ISSUER: ISSUER,
        OIDC_AUDIENCE: AUDIENCE,
        OIDC_JWKS_URL: issuer.jwksUrl,
        API_KEYS: `acme:${KEY}`,
        AUTH_FAILURES_PER_MINUTE: '2',
        TRUST_PROXY: 'true',
      },
    });
  });
  afterAll(async () => {
    await app.close();
    await issuer.stop();
  });

  it('an address over its budget is refused before its token is verified', async () => {
    const from = (address: string) => ({ 'x-forwarded-for': address });
    for (let i = 0; i < 2; i++) expectError(await get(app, bearer('not-a-jwt', from('198.51.100.1'))), 401, 'UNAUTHENTICATED');
    const token = await issuer.sign({ tenant: 'acme' });
    // Verifying it would fetch the issuer's keys: none are fetched for the refused address.
    expectRateLimited(await get(app, bearer(token, from('198.51.100.1'))));
    expect(issuer.fetches).toBe(0);
    expect((await get(app, bearer(KEY, from('198.51.100.1')))).status).toBe(200);
    expect((await get(app, bearer(token, from('198.51.100.2')))).status).toBe(200);
    expect(issuer.fetches).toBe(1);
  });
});
