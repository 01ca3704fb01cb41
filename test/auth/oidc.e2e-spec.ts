import { base64url, SignJWT, UnsecuredJWT } from 'jose';
import { api, RunningApp, startApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { AUDIENCE, ISSUER, OidcIssuer, signingKey } from './oidc-issuer';

/**
 * docs/api.md#authentication-and-tenants with OIDC: bearer JWTs verified against the issuer's JWKS, the tenant
 * taken from a claim, API keys working beside them, and an unreachable key server answered as
 * 503 rather than as a bad token.
 */
const issuer = new OidcIssuer([]);
beforeAll(async () => {
  issuer.keys = [await signingKey('rsa-1', 'RS256'), await signingKey('ec-1', 'ES256')];
  await issuer.start();
});
afterAll(() => issuer.stop());

const oidcEnv = (extra: Record<string, string> = {}) => ({
  OIDC_ISSUER: ISSUER,
  OIDC_AUDIENCE: AUDIENCE,
  OIDC_JWKS_URL: issuer.jwksUrl,
  API_KEYS: 'acme:acme-api-key-0123456789',
  // These suites send far more bad tokens than the per-address failure budget allows.
  AUTH_FAILURES_PER_MINUTE: '0',
  ...extra,
});
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The app for the enclosing block, configured once the issuer above listens. */
function useOidcApp(extra: Record<string, string> = {}): RunningApp {
  const app = {} as RunningApp;
  beforeAll(async () => Object.assign(app, await startApp({ env: oidcEnv(extra) })));
  afterAll(() => app.close());
  return app;
}
const hour = () => Math.floor(Date.now() / 1000) + 3600;

describe('OIDC bearer tokens (docs/api.md#authentication-and-tenants)', () => {
  const app = useOidcApp();
  const get = (token: string, path = '/v1/runtime') => api(app.baseUrl, 'GET', path, undefined, bearer(token));

  it('a valid token (RS256 or ES256) acts for the tenant in its claim, beside API keys', async () => {
    const rsa = await issuer.sign({ tenant: 'acme', sub: 'user-1' });
    const ec = await issuer.sign({ tenant: 'acme' }, issuer.keys[1]);
    expect((await get(rsa)).status).toBe(200);
    const created = await api(app.baseUrl, 'POST', '/v1/conversations', { title: 'by jwt' }, bearer(ec));
    expect(created.status).toBe(201);
    // The same tenant through its API key sees it; another tenant's token does not.
    expect((await get('acme-api-key-0123456789', `/v1/conversations/${created.body.id}`)).status).toBe(200);
    expectError(await get(await issuer.sign({ tenant: 'globex' }), `/v1/conversations/${created.body.id}`), 404, 'NOT_FOUND');
  });

  describe('each bad token kind is 401 UNAUTHENTICATED', () => {
    const other = signingKey('rsa-1', 'RS256');
    const cases: [string, () => Promise<string>][] = [
      ['alg: none', async () => new UnsecuredJWT({ tenant: 'acme' }).setIssuer(ISSUER).setAudience(AUDIENCE).setExpirationTime('1h').encode()],
      [
        'HS256 (a shared secret)',
        async () =>
          new SignJWT({ tenant: 'acme' })
            .setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' })
            .setIssuer(ISSUER)
            .setAudience(AUDIENCE)
            .setExpirationTime('1h')
            .sign(new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!')),
      ],
      [
        'expired',
        () =>
          issuer.sign({ tenant: 'acme' }, undefined, (jwt) => jwt.setIssuedAt(Date.now() / 1000 - 7200).setExpirationTime(Math.floor(Date.now() / 1000) - 60)),
      ],
      ['not yet valid', () => issuer.sign({ tenant: 'acme' }, undefined, (jwt) => jwt.setNotBefore(hour()))],
      ['wrong audience', () => issuer.sign({ tenant: 'acme' }, undefined, (jwt) => jwt.setAudience('someone-else'))],
      ['wrong issuer', () => issuer.sign({ tenant: 'acme' }, undefined, (jwt) => jwt.setIssuer('https://evil.test'))],
      [
        'no expiry',
        async () => {
          const key = issuer.keys[0];
          return new SignJWT({ tenant: 'acme' })
            .setProtectedHeader({ alg: 'RS256', kid: key.kid })
            .setIssuer(ISSUER)
            .setAudience(AUDIENCE)
            .sign(key.privateKey);
        },
      ],
      ['bad signature (another key with the same kid)', async () => issuer.sign({ tenant: 'acme' }, await other)],
      [
        'tampered payload',
        async () => {
          const [header, , signature] = (await issuer.sign({ tenant: 'globex' })).split('.');
          const payload = base64url.encode(JSON.stringify({ tenant: 'acme', iss: ISSUER, aud: AUDIENCE, exp: hour() }));
          return `${header}.${payload}.${signature}`;
        },
      ],
      ['unknown kid', async () => issuer.sign({ tenant: 'acme' }, { ...(await other), kid: 'nobody' })],
      ['missing tenant claim', () => issuer.sign({ sub: 'user-1' })],
      ['numeric tenant claim', () => issuer.sign({ tenant: 42 })],
      ['array tenant claim', () => issuer.sign({ tenant: ['acme'] })],
      ['empty tenant claim', () => issuer.sign({ tenant: '' })],
      ['not a JWT at all', async () => 'not-a-jwt'],
      ['a JWT cut short', async () => (await issuer.sign({ tenant: 'acme' })).split('.').slice(0, 2).join('.')],
    ];

    it.each(cases)('%s', async (_, make) => {
      const token = await make();
      const res = await get(token);
      expectError(res, 401, 'UNAUTHENTICATED');
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="runledger", error="invalid_token"');
      expect(res.text).not.toContain(token);
    });

    it('says why for the common cases, without echoing the token', async () => {
      const expired = await issuer.sign({ tenant: 'acme' }, undefined, (jwt) => jwt.setExpirationTime(Math.floor(Date.now() / 1000) - 60));
      expect((await get(expired)).body.error.message).toBe('bearer token has expired');
      expect((await get(await issuer.sign({ tenant: 'acme' }, undefined, (jwt) => jwt.setAudience('x')))).body.error.message).toBe(
        'bearer token is for another audience',
      );
      expect((await get(await issuer.sign({}))).body.error.message).toBe('bearer token has no string "tenant" claim');
    });

    it.each([
      ['a control character', 'acme\u0007'],
      ['a NUL', 'acme\u0000globex'],
      ['10 KB', 'a'.repeat(10 * 1024)],
      ['a space', 'ac me'],
      ['a slash', 'acme/globex'],
      ['a leading dot', '.acme'],
    ])('a tenant claim with %s is refused by the rule API_KEYS tenants follow, without echoing it', async (_, tenant) => {
      const res = await get(await issuer.sign({ tenant }));
      expectError(res, 401, 'UNAUTHENTICATED');
      expect(res.body.error.message).toBe('bearer token\'s "tenant" claim is not a valid tenant name (letters, digits, ".", "_", "-"; at most 128)');
      expect(res.text).not.toContain(tenant);
    });
  });
});

describe('OIDC_TENANT_CLAIM names the claim', () => {
  const app = useOidcApp({ OIDC_TENANT_CLAIM: 'https://runledger.test/org' });

  it('reads the tenant from it and ignores `tenant`', async () => {
    const good = await issuer.sign({ 'https://runledger.test/org': 'acme' });
    expect((await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer(good))).status).toBe(200);
    const wrongClaim = await issuer.sign({ tenant: 'acme' });
    expectError(await api(app.baseUrl, 'GET', '/v1/runtime', undefined, bearer(wrongClaim)), 401, 'UNAUTHENTICATED');
  });
});
