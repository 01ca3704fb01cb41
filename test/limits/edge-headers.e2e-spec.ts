import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { openStream } from './stream-client';

/**
 * Security headers (helmet) on every answer, refusals included, with a CSP that
 * Swagger UI works under; CORS (@fastify/cors) off by default, on with CORS_ORIGINS, and a
 * preflight that needs no key. Both come before authentication.
 */
const KEY = { authorization: 'Bearer acme-key-0123456789abc' };
const ORIGIN = 'https://app.example.com';

const expectSecurityHeaders = (headers: Headers) => {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-frame-options')).toBe('SAMEORIGIN');
  expect(headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('content-security-policy')).toContain("default-src 'self'");
};

describe('security headers and CORS off (the default)', () => {
  const app = useApp({ env: { API_KEYS: 'acme:acme-key-0123456789abc' } });

  it.each([
    ['an answer', 'GET', '/v1/runtime', KEY, 200],
    ['a 401', 'GET', '/v1/runtime', {}, 401],
    ['a 404 of an unknown route', 'GET', '/v1/nope', KEY, 404],
    ['a 400', 'POST', '/v1/conversations', KEY, 400],
    ['a probe', 'GET', '/health/live', {}, 200],
  ] as const)('%s carries the security headers', async (_, method, path, headers, status) => {
    const res = await api(app.baseUrl, method, path, method === 'POST' ? '{' : undefined, headers);
    expect(res.status).toBe(status);
    expectSecurityHeaders(res.headers);
  });

  it('an event stream carries them too', async () => {
    const stream = await openStream(app.baseUrl, '/v1/events', KEY);
    try {
      expect(stream.status).toBe(200);
      expectSecurityHeaders(stream.headers);
    } finally {
      await stream.close();
    }
  });

  it('Swagger UI loads under the CSP: no inline script, scripts and styles from /docs/, each served with the CSP', async () => {
    const page = await api(app.baseUrl, 'GET', '/docs');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy')!;
    const directives = new Map(
      csp
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toEqual(expect.arrayContaining(["'self'", "'unsafe-inline'"]));
    expect(directives.get('img-src')).toEqual(expect.arrayContaining(["'self'", 'data:']));
    // The server speaks plain HTTP: upgrading the page's own assets to https:// would break it.
    expect(directives.has('upgrade-insecure-requests')).toBe(false);
    // Every script is a file under /docs/ ('self'), none inline; inline styles are allowed.
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const scripts = [...page.text.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)].map((m) => new URL(m[1], `${app.baseUrl}/docs`).pathname);
    const styles = [...page.text.matchAll(/<link[^>]*\bhref="([^"]+)"/g)].map((m) => new URL(m[1], `${app.baseUrl}/docs`).pathname);
    expect(scripts).toEqual(['/docs/swagger-ui-bundle.js', '/docs/swagger-ui-standalone-preset.js', '/docs/swagger-ui-init.js']);
    expect(styles).toEqual(expect.arrayContaining(['/docs/swagger-ui.css']));
    for (const asset of [...scripts, ...styles, '/docs/json']) {
      const res = await api(app.baseUrl, 'GET', asset);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      expect(res.headers.get('content-security-policy')).toBe(csp);
    }
  });

  it('sends no CORS headers, and an OPTIONS request is an ordinary request (401 without a key, then 404)', async () => {
    const res = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, { ...KEY, origin: ORIGIN });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = { origin: ORIGIN, 'access-control-request-method': 'POST' };
    expectError(await api(app.baseUrl, 'OPTIONS', '/v1/conversations', undefined, preflight), 401, 'UNAUTHENTICATED');
    const withKey = await api(app.baseUrl, 'OPTIONS', '/v1/conversations', undefined, { ...preflight, ...KEY });
    expectError(withKey, 404, 'NOT_FOUND');
    expect(withKey.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('CORS on (CORS_ORIGINS)', () => {
  const app = useApp({ env: { API_KEYS: 'acme:acme-key-0123456789abc', CORS_ORIGINS: `${ORIGIN},http://localhost:5173` } });
  const preflight = (origin: string) => ({
    origin,
    'access-control-request-method': 'POST',
    'access-control-request-headers': 'authorization, content-type',
  });

  it('answers a preflight from a listed origin with 204 and no key', async () => {
    const res = await api(app.baseUrl, 'OPTIONS', '/v1/executions', undefined, preflight(ORIGIN));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect(res.headers.get('vary')).toMatch(/Origin/);
    expectSecurityHeaders(res.headers);
  });

  it('lets a listed origin read answers and refusals, and the headers a client needs', async () => {
    for (const [headers, status] of [
      [KEY, 200],
      [{}, 401],
    ] as const) {
      const res = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, { ...headers, origin: 'http://localhost:5173' });
      expect(res.status).toBe(status);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(res.headers.get('access-control-expose-headers')).toMatch(/Retry-After/);
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('gives nothing to an origin it does not list: no CORS headers, and its preflight meets auth', async () => {
    const res = await api(app.baseUrl, 'GET', '/v1/runtime', undefined, { ...KEY, origin: 'https://evil.example' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const refused = await api(app.baseUrl, 'OPTIONS', '/v1/executions', undefined, preflight('https://evil.example'));
    expectError(refused, 401, 'UNAUTHENTICATED');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('an OPTIONS request without an Origin is no preflight: 404 in the envelope once authenticated', async () => {
    expectError(await api(app.baseUrl, 'OPTIONS', '/v1/executions', undefined, KEY), 404, 'NOT_FOUND');
  });
});

describe('CORS_ORIGINS=*', () => {
  const app = useApp({ env: { CORS_ORIGINS: '*' } });

  it('allows any origin', async () => {
    const res = await api(app.baseUrl, 'OPTIONS', '/v1/runtime', undefined, { origin: 'https://anything.example', 'access-control-request-method': 'GET' });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://anything.example');
  });
});
