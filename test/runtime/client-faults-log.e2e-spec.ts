import { api, tempSqlitePath } from '../support/app-harness';
import { logLines } from '../support/json-logs';
import { holdSocket, postHead } from '../limits/held-socket';
import { built, exitWithin, killLeftovers, launch, MAIN, ServerProcess } from './compiled-server';

/**
 * What clients do wrong is not the server's error. A client that leaves halfway through
 * its body, one cut off by REQUEST_TIMEOUT_MS, and bodies nested thousands of levels deep are
 * logged below error level (the first two were `error` lines with Node's "aborted" stack, the last
 * a 500 with a stack trace). Against the compiled server, whose log is its stdout.
 */
const describeBuilt = built ? describe : describe.skip;
if (!built) process.stderr.write(`client faults log suite skipped: ${MAIN} is missing; run npm run build (npm test does)\n`);

const portOf = (server: ServerProcess) => Number(new URL(server.baseUrl).port);

async function waitForLine(server: ServerProcess, pattern: RegExp, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(server.stdout())) {
    if (Date.now() > deadline) throw new Error(`no log line matching ${pattern} in:\n${server.stdout()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeBuilt('client faults in the log (compiled server)', () => {
  afterEach(() => killLeftovers());

  it('a client leaving mid-body, a body cut off by REQUEST_TIMEOUT_MS and 5,000-deep bodies leave no error line', async () => {
    const server = await launch({ SQLITE_PATH: tempSqlitePath(), LOG_LEVEL: 'debug', REQUEST_TIMEOUT_MS: '500' });
    const port = portOf(server);

    // Half of a 1,000-byte body, then the client is gone.
    const left = await holdSocket(port, postHead('/v1/conversations', 1000, { 'x-request-id': 'left-mid-body' }) + '{"title":"' + 'a'.repeat(490));
    await new Promise((resolve) => setTimeout(resolve, 100));
    left.socket.destroy();
    await waitForLine(server, /"reqId":"left-mid-body"[^\n]*closed before its request had arrived/);

    // The same, but the client stays and the timeout ends it: 408, then closed.
    const late = await holdSocket(port, postHead('/v1/conversations', 1000, { 'x-request-id': 'late-body' }) + '{"title":"');
    expect((await late.closed).text).toMatch(/^HTTP\/1\.1 408 /);
    await waitForLine(server, /"reqId":"late-body"[^\n]*closed before its request had arrived/);

    // Deep bodies: refused as 400 before any route code (or the store) sees them.
    const conversation = await api(server.baseUrl, 'POST', '/v1/conversations', {});
    for (const deep of ['['.repeat(5000) + ']'.repeat(5000), '{"a":'.repeat(5000) + '1' + '}'.repeat(5000)]) {
      const res = await api(server.baseUrl, 'POST', '/v1/conversations', `{"metadata":{"x":${deep}}}`, { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      const started = await api(
        server.baseUrl,
        'POST',
        '/v1/executions',
        `{"conversationId":"${conversation.body.id}","provider":"scripted","input":{"text":"x"},"config":{"x":${deep}}}`,
        { 'content-type': 'application/json' },
      );
      expect(started.status).toBe(400);
    }

    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
    const lines = logLines(server.stdout());
    expect(lines.filter((line) => ['error', 'fatal'].includes(line.level))).toEqual([]);
    for (const reqId of ['left-mid-body', 'late-body']) {
      expect(lines.filter((line) => line.reqId === reqId && line.context === 'HTTP')).toEqual([
        expect.objectContaining({ level: 'debug', msg: "POST /v1/conversations: the client's connection closed before its request had arrived" }),
      ]);
    }
  });
});
