import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { api, readSse, SseMessage, tempSqlitePath } from '../support/app-harness';
import { logMessages } from '../support/json-logs';

/**
 * docs/api.md#executions and docs/api.md#authentication-and-tenants against the compiled server (`npm test` builds dist/ first): what was
 * acknowledged survives a restart byte for byte, an execution cut off by a crash ends as
 * RUNTIME_INTERRUPTED with every event a client saw, and one SQLite file has one owner.
 */
const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');

interface Server {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

const children = new Set<ChildProcess>();

function launch(sqlitePath: string): { child: ChildProcess; exited: Server['exited']; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: sqlitePath, LOG_LEVEL: 'info', NO_COLOR: '1', EVENT_STORE: 'sqlite' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Starts the compiled server and waits for the line that says where it serves. */
async function startServer(sqlitePath: string): Promise<Server> {
  const { child, exited, stdout, stderr } = launch(sqlitePath);
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const match = /serving on (http:\/\/[^\s]+)/.exec(stdout());
      if (match) resolve(match[1].replace(/\/$/, ''));
    };
    child.stdout!.on('data', look);
    void exited.then(({ code }) => reject(new Error(`server exited (${code}) before serving:\n${stderr()}`)));
  });
  return { child, baseUrl, exited, stderr };
}

async function stop(server: Server, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  server.child.kill(signal);
  return server.exited;
}

/** Everything a client can read about a set of executions, as raw response text. */
async function snapshot(baseUrl: string, conversationId: string, executionIds: string[]): Promise<string[]> {
  const texts = [(await api(baseUrl, 'GET', `/v1/conversations/${conversationId}`)).text];
  for (const id of executionIds) {
    texts.push((await api(baseUrl, 'GET', `/v1/executions/${id}`)).text);
    texts.push((await api(baseUrl, 'GET', `/v1/executions/${id}/events`)).text);
    texts.push((await api(baseUrl, 'GET', `/v1/executions/${id}/events?after=2&limit=3`)).text);
    texts.push((await readSse(baseUrl, `/v1/executions/${id}/events`)).raw);
  }
  return texts;
}

async function waitTerminal(baseUrl: string, id: string): Promise<any> {
  for (;;) {
    const res = await api(baseUrl, 'GET', `/v1/executions/${id}`);
    if (['completed', 'failed', 'cancelled'].includes(res.body.status)) return res.body;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const describeBuilt = existsSync(MAIN) ? describe : describe.skip;
if (!existsSync(MAIN)) process.stderr.write(`durability suite skipped: ${MAIN} is missing; run npm run build (npm test does)\n`);

describeBuilt('durability across process restarts (compiled server)', () => {
  afterEach(() => {
    for (const child of children) child.kill('SIGKILL');
  });

  it('after SIGTERM and a restart on the same file, everything reads back byte-identical', async () => {
    const sqlitePath = tempSqlitePath();
    const first = await startServer(sqlitePath);
    const conversationId = (await api(first.baseUrl, 'POST', '/v1/conversations', { title: 'durable ✓', metadata: { k: [1, 2] } })).body.id;
    const start = (body: Record<string, unknown>) =>
      api(first.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'persist me please' }, ...body });
    const ids = [
      (await start({ idempotencyKey: 'durable-1', requiredCapabilities: ['tools'] })).body.id,
      (
        await start({
          config: {
            script: [
              { type: 'text', text: 'x' },
              { type: 'fail', message: 'nope' },
            ],
          },
        })
      ).body.id,
      (await start({ config: { script: [{ type: 'providerEvent', name: 'e', payload: { a: 'ü' } }] } })).body.id,
    ];
    for (const id of ids) await waitTerminal(first.baseUrl, id);
    const before = await snapshot(first.baseUrl, conversationId, ids);
    expect(await stop(first, 'SIGTERM')).toEqual({ code: 0, signal: null });

    const second = await startServer(sqlitePath);
    expect(await snapshot(second.baseUrl, conversationId, ids)).toEqual(before);
    // The restarted runtime keeps going on the same file.
    const next = await api(second.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'again' } });
    expect(next.status).toBe(201);
    expect((await waitTerminal(second.baseUrl, next.body.id)).outputText).toBe('again');
    const conversation = await api(second.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
    expect(conversation.body.executions.map((e: { id: string }) => e.id)).toEqual([...ids, next.body.id]);
    await stop(second, 'SIGTERM');
  });

  it('SIGKILL mid-run: after restart the execution failed with RUNTIME_INTERRUPTED, keeping every event a client saw', async () => {
    const sqlitePath = tempSqlitePath();
    const first = await startServer(sqlitePath);
    const conversationId = (await api(first.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    const started = await api(first.baseUrl, 'POST', '/v1/executions', {
      conversationId,
      provider: 'scripted',
      input: { text: 'crash' },
      config: {
        script: [
          { type: 'text', text: 'seen ' },
          { type: 'providerEvent', name: 'progress', payload: { pct: 50 } },
          { type: 'text', text: 'also seen' },
          { type: 'delay', ms: 30000 },
          { type: 'text', text: 'never' },
        ],
      },
    });
    const id = started.body.id;
    const isData = (m: SseMessage) => m.data !== undefined;
    const sse = await readSse(first.baseUrl, `/v1/executions/${id}/events`, {}, (m) => m.filter(isData).length >= 5);
    const received = sse.messages.filter(isData);
    expect(received.map((m) => m.event)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'provider.event', 'output.text.delta']);
    expect(await stop(first, 'SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' });

    const second = await startServer(sqlitePath);
    const execution = (await api(second.baseUrl, 'GET', `/v1/executions/${id}`)).body;
    expect(execution).toMatchObject({ status: 'failed', outputText: null, endedAt: expect.any(String), lastSequence: 6 });
    expect(execution.error).toEqual({ code: 'RUNTIME_INTERRUPTED', message: expect.any(String) });
    const replay = (await api(second.baseUrl, 'GET', `/v1/executions/${id}/events`)).body;
    expect(replay.terminal).toBe(true);
    expect(replay.events.slice(0, 5).map((e: unknown) => JSON.stringify(e))).toEqual(received.map((m) => m.data));
    expect(replay.events.map((e: { sequence: number }) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(replay.events[5]).toMatchObject({ type: 'run.failed', data: { error: { code: 'RUNTIME_INTERRUPTED' } } });

    // The client resumes where it was cut off and gets exactly the terminal event.
    const resumed = await readSse(second.baseUrl, `/v1/executions/${id}/events`, { 'last-event-id': received[4].id! });
    expect(resumed.messages.filter(isData).map((m) => m.data)).toEqual([JSON.stringify(replay.events[5])]);
    const conversation = await api(second.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
    expect(conversation.body.executions).toEqual([expect.objectContaining({ id, status: 'failed' })]);
    await stop(second, 'SIGTERM');
  });

  it('a second process on the same SQLite file exits non-zero saying the file is in use', async () => {
    const sqlitePath = tempSqlitePath();
    const owner = await startServer(sqlitePath);
    const intruder = launch(sqlitePath);
    const { code } = await intruder.exited;
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    // Said in its JSON log lines on stdout, like everything the server writes.
    const said = logMessages(intruder.stdout());
    expect(said).toMatch(/in use/);
    expect(said).toContain(sqlitePath);
    expect(said).not.toMatch(/serving on/);
    // The owner is unaffected.
    expect((await api(owner.baseUrl, 'GET', '/v1/runtime')).status).toBe(200);
    expect(await stop(owner, 'SIGTERM')).toEqual({ code: 0, signal: null });
  });
});
