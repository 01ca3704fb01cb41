import { UnsecuredJWT } from 'jose';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { InvalidTokenError, JwtVerifier, SigningKeysUnavailableError } from '../../src/auth/jwt-verifier';
import { api, RunningApp, startApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { AUDIENCE, ISSUER, OidcIssuer, signingKey } from './oidc-issuer';

/**
 * When the issuer's signing keys cannot be fetched and none are cached, a token may well be
 * valid: the answer is 503 SERVICE_UNAVAILABLE with Retry-After, not 401.
 */
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/jwks`;
}

describe('signing keys unavailable', () => {
  const issuer = new OidcIssuer([]);
  let app: RunningApp;
  beforeAll(async () => {
    issuer.keys = [await signingKey('rsa-1')];
    await issuer.start();
  });
  afterAll(() => issuer.stop());
  afterEach(() => app?.close());

  const startWith = async (jwksUrl: string) => {
    app = await startApp({ env: { OIDC_ISSUER: ISSUER, OIDC_AUDIENCE: AUDIENCE, OIDC_JWKS_URL: jwksUrl, API_KEYS: 'acme:acme-api-key-0123456789' } });
  };

  it('an unreachable key server is 503 with Retry-After; API keys and plainly bad tokens are unaffected', async () => {
    await startWith(await closedPortUrl());
    const res = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer(await issuer.sign({ tenant: 'acme' })));
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer('acme-api-key-0123456789'))).status).toBe(200);
    // Refused before any key is needed: 401 whatever the key server does.
    const none = new UnsecuredJWT({ tenant: 'acme' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('1h').encode();
    expectError(await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer(none)), 401, 'UNAUTHENTICATED');
    expectError(await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer('garbage')), 401, 'UNAUTHENTICATED');
    expectError(await api(app.baseUrl, 'GET', '/v1/nope', undefined, bearer(await issuer.sign({ tenant: 'acme' }))), 503, 'SERVICE_UNAVAILABLE');
  });

  it('a key server answering 500 is 503; a burst fetches once; it recovers once the server does', async () => {
    await startWith(issuer.jwksUrl);
    issuer.mode = 500;
    const token = await issuer.sign({ tenant: 'acme' });
    const before = issuer.fetches;
    for (let i = 0; i < 10; i++) {
      const res = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer(token));
      expectError(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toBe('5');
    }
    expect(issuer.fetches - before).toBe(1);
    issuer.mode = 'ok';
    await new Promise((r) => setTimeout(r, 5100));
    expect((await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer(token))).status).toBe(200);
  });
});

describe('JwtVerifier key cache', () => {
  const issuer = new OidcIssuer([]);
  beforeAll(async () => {
    issuer.keys = [await signingKey('rsa-1')];
    await issuer.start();
  });
  afterAll(() => issuer.stop());

  it('keeps verifying with keys it fetched before while the key server is down, and only those', async () => {
    const verifier = new JwtVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: issuer.jwksUrl, tenantClaim: 'tenant' }, { cacheMaxAgeMs: 1 });
    const token = await issuer.sign({ tenant: 'acme' });
    await expect(verifier.tenantOf(token)).resolves.toBe('acme');
    issuer.mode = 503;
    await new Promise((r) => setTimeout(r, 5));
    await expect(verifier.tenantOf(token)).resolves.toBe('acme');
    // A token from a key never seen may be from a rotation the server cannot tell about yet.
    const rotated = await issuer.sign({ tenant: 'acme' }, await signingKey('rsa-2'));
    await expect(verifier.tenantOf(rotated)).rejects.toBeInstanceOf(SigningKeysUnavailableError);
    // A bad signature with a known kid is still a bad token.
    const forged = await issuer.sign({ tenant: 'acme' }, await signingKey('rsa-1'));
    await expect(verifier.tenantOf(forged)).rejects.toBeInstanceOf(InvalidTokenError);
    issuer.mode = 'ok';
  });
});
