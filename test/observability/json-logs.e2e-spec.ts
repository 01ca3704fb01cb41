import { spawnSync } from 'node:child_process';
import { api, JsonResponse, tempSqlitePath } from '../support/app-harness';
import { LogLine, logLines } from '../support/json-logs';
import { AUDIENCE, ISSUER, OidcIssuer, signingKey } from '../auth/oidc-issuer';
import { built, exitWithin, killLeftovers, launch, MAIN, ROOT, ServerProcess } from '../runtime/compiled-server';

/**
 * Structured JSON logs through nestjs-pino, one object per line on stdout from
 * the first line of start-up to the last of shutdown; a request id on each request's lines
 * (X-Request-Id, echoed, or generated), the execution id where there is one; never a key, a
 * token or input text. Against the compiled server.
 */
const describeBuilt = built ? describe : describe.skip;
if (!built) process.stderr.write(`JSON logs suite skipped: ${MAIN} is missing; run npm run build (npm test does)\n`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY = 'acme-json-logs-k3y-0001';
const WRONG_KEY = 'not-a-key-but-s3cret';
const INPUT = 'confidential input text 7d1f';

describeBuilt('JSON logs (compiled server)', () => {
  const issuer = new OidcIssuer([]);
  beforeAll(async () => {
    issuer.keys = [await signingKey('rsa-1')];
    await issuer.start();
  });
  afterAll(() => issuer.stop());
  afterEach(() => {
    issuer.mode = 'ok';
    killLeftovers();
  });

  const start = (level: string) =>
    launch({
      SQLITE_PATH: tempSqlitePath(),
      LOG_LEVEL: level,
      API_KEYS: `acme:${KEY}`,
      OIDC_ISSUER: ISSUER,
      OIDC_AUDIENCE: AUDIENCE,
      OIDC_JWKS_URL: issuer.jwksUrl,
    });
  const call = (server: ServerProcess, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api(server.baseUrl, method, path, body, { authorization: `Bearer ${KEY}`, ...headers });

  /** A conversation and a completed execution of `scripted` echoing INPUT; answers the start's response. */
  async function runExecution(server: ServerProcess, requestId?: string): Promise<JsonResponse> {
    const conversation = await call(server, 'POST', '/v1/conversations', { title: 'logs' });
    const body = { conversationId: conversation.body.id, provider: 'scripted', input: { text: INPUT } };
    const started = await call(server, 'POST', '/v1/executions', body, requestId ? { 'x-request-id': requestId } : {});
    expect(started.status).toBe(201);
    for (let i = 0; i < 200; i++) {
      if ((await call(server, 'GET', `/v1/executions/${started.body.id}`)).body.status === 'completed') return started;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error('execution did not complete');
  }

  async function stop(server: ServerProcess): Promise<LogLine[]> {
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
    // Every line of stdout, from Nest's first start-up line to the last of shutdown, is JSON.
    const lines = logLines(server.stdout());
    expect(lines[0]).toMatchObject({ level: 'info', context: 'NestFactory', msg: 'Starting Nest application...' });
    expect(lines.at(-1)).toMatchObject({ level: 'info', context: 'Runledger', msg: 'shut down' });
    expect(lines.find((l) => l.msg?.startsWith('serving on http://'))).toMatchObject({ context: 'Runledger' });
    for (const line of lines) expect(line).toEqual(expect.objectContaining({ level: expect.any(String), time: expect.any(String) }));
    return lines;
  }

  /** The closing line of the request with this id (pino-http's, `METHOD /path status n ms`). */
  const requestLine = (lines: LogLine[], reqId: string) => lines.find((l) => l.reqId === reqId && /^[A-Z]+ \/\S* \d{3} \d+ ms/.test(l.msg ?? ''));

  it('at debug: X-Request-Id echoed or generated, on the request line with the execution id; no key, token or input text', async () => {
    const server = await start('debug');
    const sent = await call(server, 'GET', '/v1/runtime', undefined, { 'x-request-id': 'client-req-0001' });
    expect(sent.headers.get('x-request-id')).toBe('client-req-0001');
    const generated = (await call(server, 'GET', '/v1/runtime')).headers.get('x-request-id')!;
    expect(generated).toMatch(UUID);
    // Too long, or not visible ASCII: replaced by a generated id rather than trusted into the logs.
    const replaced: string[] = [];
    for (const unacceptable of ['x'.repeat(129), 'two words', 'ünïcode']) {
      const res = await call(server, 'GET', '/v1/runtime', undefined, { 'x-request-id': unacceptable });
      const echoed = res.headers.get('x-request-id')!;
      expect(echoed).toMatch(UUID);
      replaced.push(echoed);
    }
    // Refused (401) and unroutable (400, answered before any hook) requests carry theirs as well.
    const refused = await api(server.baseUrl, 'GET', '/v1/runtime', undefined, { authorization: `Bearer ${WRONG_KEY}`, 'x-request-id': 'refused-1' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toBe('refused-1');
    const unroutable = await call(server, 'GET', '/v1/conversations/%E0%A4%A', undefined, { 'x-request-id': 'bad-url-1' });
    expect(unroutable.status).toBe(400);
    expect(unroutable.headers.get('x-request-id')).toBe('bad-url-1');

    const started = await runExecution(server, 'start-req-1');
    const executionId: string = started.body.id;
    expect(started.headers.get('x-request-id')).toBe('start-req-1');
    const read = await call(server, 'GET', `/v1/executions/${executionId}/events`, undefined, { 'x-request-id': 'events-req-1' });
    expect(read.status).toBe(200);
    const lines = await stop(server);

    expect(requestLine(lines, 'client-req-0001')).toMatchObject({
      level: 'debug',
      msg: expect.stringMatching(/^GET \/v1\/runtime 200 \d+ ms$/),
      req: expect.objectContaining({ method: 'GET', url: '/v1/runtime', headers: expect.objectContaining({ authorization: '[redacted]' }) }),
      res: { statusCode: 200 },
    });
    expect(requestLine(lines, generated)).toMatchObject({ msg: expect.stringMatching(/^GET \/v1\/runtime 200 /) });
    for (const id of replaced) expect(requestLine(lines, id)).toBeDefined();
    expect(requestLine(lines, 'refused-1')).toMatchObject({ msg: expect.stringMatching(/^GET \/v1\/runtime 401 /) });
    expect(requestLine(lines, 'bad-url-1')).toMatchObject({ msg: expect.stringMatching(/^GET \/v1\/conversations\/%E0%A4%A 400 /) });
    // The execution id: of the execution the request created, and of the one its path names.
    expect(requestLine(lines, 'start-req-1')).toMatchObject({ executionId, msg: expect.stringMatching(/^POST \/v1\/executions 201 /) });
    expect(requestLine(lines, 'events-req-1')).toMatchObject({ executionId, msg: expect.stringMatching(/^GET \/v1\/executions\/\S+\/events 200 /) });
    expect(requestLine(lines, 'client-req-0001')!.executionId).toBeUndefined();

    const stdout = server.stdout();
    for (const secret of [KEY, WRONG_KEY, INPUT]) expect(stdout).not.toContain(secret);
  });

  it('at debug: a key sent in the query string by mistake is in no line, neither in `url` nor in the message', async () => {
    const server = await start('debug');
    const inQuery = await call(server, 'GET', `/v1/runtime?token=${KEY}`, undefined, { 'x-request-id': 'query-key-1' });
    expect(inQuery.status).toBe(400);
    const bare = await api(server.baseUrl, 'GET', `/v1/runtime?${KEY}`, undefined, { 'x-request-id': 'query-key-2' });
    expect(bare.status).toBe(401);
    const lines = await stop(server);
    expect(requestLine(lines, 'query-key-1')).toMatchObject({
      msg: expect.stringMatching(/^GET \/v1\/runtime\?token=\[redacted\] 400 /),
      req: expect.objectContaining({ url: '/v1/runtime?token=[redacted]' }),
    });
    expect(requestLine(lines, 'query-key-2')).toMatchObject({ req: expect.objectContaining({ url: '/v1/runtime?[redacted]' }) });
    expect(server.stdout()).not.toContain(KEY);
  });

  it("at info: no request below warn, a line inside a request carries its id, a run's its execution's and its starter's, nothing secret", async () => {
    const server = await start('info');
    await runExecution(server);
    // A run whose cleanup fails at its deadline: its session warns, after the start's request has ended.
    const conversation = await call(server, 'POST', '/v1/conversations', {});
    const config = { script: [{ type: 'delay', ms: 60000 }], cleanup: 'fail' };
    const body = { conversationId: conversation.body.id, provider: 'scripted', input: { text: INPUT }, config, timeoutMs: 300 };
    const slow = await call(server, 'POST', '/v1/executions', body, { 'x-request-id': 'slow-start-1' });
    expect(slow.status).toBe(201);
    for (let status = 'running'; status !== 'failed'; await new Promise((resolve) => setTimeout(resolve, 50))) {
      status = (await call(server, 'GET', `/v1/executions/${slow.body.id}`)).body.status;
    }
    // The identity provider is down: the 503's cause is logged (Auth, a Nest Logger) inside the request.
    issuer.mode = 500;
    const token = await issuer.sign({ tenant: 'acme' });
    const outage = await api(server.baseUrl, 'GET', '/v1/runtime', undefined, { authorization: `Bearer ${token}`, 'x-request-id': 'outage-1' });
    expect(outage.status).toBe(503);
    expect((await api(server.baseUrl, 'GET', '/v1/runtime', undefined, { authorization: `Bearer ${WRONG_KEY}` })).status).toBe(401);
    const lines = await stop(server);

    expect(lines.filter((l) => l.level === 'debug' || l.level === 'trace')).toEqual([]);
    const ofOutage = lines.filter((l) => l.reqId === 'outage-1');
    expect(ofOutage).toEqual([
      expect.objectContaining({ level: 'warn', context: 'Auth', msg: expect.stringContaining('fetching the signing keys from') }),
      expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/^GET \/v1\/runtime 503 /) }),
    ]);
    expect(lines.filter((l) => l.executionId === slow.body.id && l.level === 'warn')).toEqual([
      expect.objectContaining({ reqId: 'slow-start-1', context: 'ExecutionRunner', msg: expect.stringContaining('its cleanup after the deadline failed') }),
    ]);
    const stdout = server.stdout();
    for (const secret of [KEY, WRONG_KEY, token, token.split('.')[2], INPUT]) expect(stdout).not.toContain(secret);
  });

  it('a bad configuration is one fatal JSON line naming every problem, exit 1, even at LOG_LEVEL=silent', () => {
    for (const level of ['info', 'silent']) {
      const result = spawnSync(process.execPath, [MAIN], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, LOG_LEVEL: level, PORT: 'eighty', API_KEYS: 'acme:s3cret-key-0123456789,globex' },
        encoding: 'utf8',
        timeout: 15000,
      });
      expect(result.status).toBe(1);
      const lines = logLines(result.stdout);
      expect(lines).toEqual([
        expect.objectContaining({
          level: 'fatal',
          context: 'Runledger',
          msg: expect.stringMatching(/^Invalid configuration:/),
          problems: ['PORT must be an integer from 0 to 65535 (got "eighty")', expect.stringContaining('API_KEYS entry 2 must be tenant:key')],
        }),
      ]);
      expect(result.stdout + result.stderr).not.toContain('s3cret');
    }
  });
});
