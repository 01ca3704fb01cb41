import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, tempSqlitePath } from '../support/app-harness';
import { logMessages } from '../support/json-logs';
import { built, exitWithin, killLeftovers, launch, MAIN, ROOT } from './compiled-server';

/**
 * A server reachable from a network never starts open by accident: a non-loopback HOST needs
 * authentication (API_KEYS, API_KEYS_FILE or OIDC) or ALLOW_UNAUTHENTICATED=true said out loud,
 * and keys too short to resist guessing stop the start.
 */
const describeBuilt = built ? describe : describe.skip;
if (!built) process.stderr.write(`startup exposure suite skipped: ${MAIN} is missing; run npm run build (npm test does)\n`);

function start(env: Record<string, string>) {
  const result = spawnSync(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NO_COLOR: '1', SQLITE_PATH: tempSqlitePath(), ...env },
    encoding: 'utf8',
    timeout: 15000,
  });
  return { status: result.status, messages: logMessages(result.stdout), output: result.stdout + result.stderr };
}

/** The server listens on every interface; the test reaches it through loopback. */
const local = (baseUrl: string) => baseUrl.replace(/\/\/[^/]+:(\d+)$/, '//127.0.0.1:$1');

describeBuilt('a network-facing start', () => {
  afterEach(killLeftovers);

  it.each(['0.0.0.0', '::', '10.1.2.3'])('HOST=%s without authentication refuses to start, naming the way out', (host) => {
    const result = start({ HOST: host });
    expect(result.status).toBe(1);
    expect(result.messages).toContain(`HOST=${host} is reachable from other machines but authentication is off`);
    expect(result.messages).toContain('ALLOW_UNAUTHENTICATED=true');
  });

  it('serves without authentication when ALLOW_UNAUTHENTICATED=true says so', async () => {
    const server = await launch({ SQLITE_PATH: tempSqlitePath(), HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true' });
    expect((await api(local(server.baseUrl), 'GET', '/v1/runtime')).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
  });

  it('serves with the keys of API_KEYS_FILE (a secrets file, one entry a line)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'runledger-secrets-')), 'api_keys');
    writeFileSync(file, 'acme:acme-file-key-0123456789\nglobex:globex-file-key-0123456789\n');
    const server = await launch({ SQLITE_PATH: tempSqlitePath(), HOST: '0.0.0.0', API_KEYS_FILE: file });
    const base = local(server.baseUrl);
    expect((await api(base, 'GET', '/v1/runtime')).status).toBe(401);
    expect((await api(base, 'GET', '/v1/runtime', undefined, { authorization: 'Bearer globex-file-key-0123456789' })).status).toBe(200);
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
  });

  it('a key shorter than 20 characters stops the start, naming its entry and not the key', () => {
    const result = start({ API_KEYS: 'acme:acme-long-enough-key-01,globex:sh0rt-s3cret' });
    expect(result.status).toBe(1);
    expect(result.messages).toContain('API_KEYS entry 2 has a key shorter than 20 characters');
    expect(result.output).not.toContain('sh0rt-s3cret');
  });
});
