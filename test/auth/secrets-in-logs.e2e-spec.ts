import { spawnSync } from 'node:child_process';
import { api, tempSqlitePath } from '../support/app-harness';
import { built, exitWithin, killLeftovers, launch, MAIN, ROOT } from '../runtime/compiled-server';
import { logMessages } from '../support/json-logs';
import { AUDIENCE, ISSUER, OidcIssuer, signingKey } from './oidc-issuer';

/** Credentials and bearer tokens never reach the logs, at any level, nor start-up errors. */
const describeBuilt = built ? describe : describe.skip;
if (!built) process.stderr.write(`auth logging suite skipped: ${MAIN} is missing; run npm run build (npm test does)\n`);

describeBuilt('secrets stay out of the logs (compiled server)', () => {
  const issuer = new OidcIssuer([]);
  beforeAll(async () => {
    issuer.keys = [await signingKey('rsa-1')];
    await issuer.start();
  });
  afterAll(() => issuer.stop());
  afterEach(killLeftovers);

  it('a bad API_KEYS stops the start with a message that names the entry, not the key', () => {
    const result = spawnSync(process.execPath, [MAIN], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, NO_COLOR: '1', API_KEYS: 'acme:first-s3cret-0123456789,globex', OIDC_ISSUER: ISSUER },
      encoding: 'utf8',
      timeout: 15000,
    });
    expect(result.status).toBe(1);
    const messages = logMessages(result.stdout);
    expect(messages).toContain('Invalid configuration');
    expect(messages).toContain('API_KEYS entry 2 must be tenant:key');
    expect(messages).toContain('OIDC_AUDIENCE is required when OIDC_ISSUER is set');
    expect(result.stderr + result.stdout).not.toContain('s3cret');
  });

  it('at LOG_LEVEL=debug, no key or token appears in any line, whatever the request got', async () => {
    const key = 'acme-log-s3cret-key-0001';
    const server = await launch({
      SQLITE_PATH: tempSqlitePath(),
      LOG_LEVEL: 'debug',
      API_KEYS: `acme:${key}`,
      OIDC_ISSUER: ISSUER,
      OIDC_AUDIENCE: AUDIENCE,
      OIDC_JWKS_URL: issuer.jwksUrl,
    });
    const good = await issuer.sign({ tenant: 'acme' });
    const expired = await issuer.sign({ tenant: 'acme' }, undefined, (jwt) => jwt.setExpirationTime(Math.floor(Date.now() / 1000) - 60));
    const call = (token: string, path = '/v1/runtime') => api(server.baseUrl, 'GET', path, undefined, { authorization: `Bearer ${token}` });
    // First with the key server down (the 503 path logs its cause), then with it back.
    issuer.mode = 500;
    expect((await call(good)).status).toBe(503);
    expect((await call(key)).status).toBe(200);
    expect((await call(`${key}-wrong`)).status).toBe(401);
    expect((await call(key, '/v1/conversations/%E0%A4%A')).status).toBe(400);
    issuer.mode = 'ok';
    await new Promise((r) => setTimeout(r, 5100));
    expect((await call(good)).status).toBe(200);
    expect((await call(expired)).status).toBe(401);
    expect((await call(good, '/v1/conversations/%E0%A4%A')).status).toBe(400);
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });

    const output = server.output();
    expect(output).toContain('GET /v1/runtime 200');
    expect(output).toContain('fetching the signing keys from');
    for (const secret of [key, good, expired, ...[good, expired].map((t) => t.split('.')[2])]) {
      expect(output).not.toContain(secret);
    }
  });
});
