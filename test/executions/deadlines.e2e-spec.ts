import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, createConversation, startApp, startExecution, storeEnv, tempSqlitePath, useApp, waitForExecution } from '../support/app-harness';
import {
  ISO,
  Step,
  cancel,
  countOf,
  expectError,
  listActions,
  postExecution,
  replay,
  respond,
  startScript,
  typesOf,
  waitForAction,
  waitForExecutionEnd,
} from '../support/execution-helpers';

const TERMINAL = ['run.completed', 'run.failed', 'run.cancelled'];
const terminalEvents = (events: any[]) => events.filter((e) => TERMINAL.includes(e.type));
const msBetween = (from: string, to: string) => Date.parse(to) - Date.parse(from);

/** docs/api.md#deadlines through real HTTP, with short real deadlines. */
describe('deadlines: timeoutMs and actionTimeoutMs', () => {
  const app = useApp({ conversation: true });
  const start = (script: Step[], extra: Record<string, unknown> = {}, config: Record<string, unknown> = {}) =>
    startExecution(app.baseUrl, { conversationId: app.conversationId, config: { script, ...config }, ...extra });

  it('both are stored in run.queued and shown on the Execution, after idempotencyKey; left out, neither appears', async () => {
    const res = await start([{ type: 'text', text: 'quick' }], { timeoutMs: 60_000, actionTimeoutMs: 30_000 });
    expect(res.status).toBe(201);
    const keys = Object.keys(res.body);
    expect(keys.slice(keys.indexOf('idempotencyKey'), keys.indexOf('createdAt'))).toEqual(['idempotencyKey', 'timeoutMs', 'actionTimeoutMs']);
    expect(res.body).toMatchObject({ timeoutMs: 60_000, actionTimeoutMs: 30_000 });
    const done = await waitForExecutionEnd(app.baseUrl, res.body.id);
    expect(done).toMatchObject({ status: 'completed', timeoutMs: 60_000, actionTimeoutMs: 30_000 });
    const [queued] = await replay(app.baseUrl, res.body.id);
    expect(queued.data).toMatchObject({ timeoutMs: 60_000, actionTimeoutMs: 30_000 });

    const plain = await start([{ type: 'text', text: 'quick' }], { timeoutMs: null });
    expect(plain.body).not.toHaveProperty('timeoutMs');
    expect(plain.body).not.toHaveProperty('actionTimeoutMs');
    expect((await replay(app.baseUrl, plain.body.id))[0].data).not.toHaveProperty('timeoutMs');
  });

  it.each([
    ['timeoutMs', 0],
    ['timeoutMs', 604_800_001],
    ['timeoutMs', 1.5],
    ['actionTimeoutMs', '300'],
    ['actionTimeoutMs', 0],
  ])('%s %p is 400 VALIDATION_ERROR, and nothing is created', async (field, value) => {
    const before = (await api(app.baseUrl, 'GET', `/v1/conversations/${app.conversationId}`)).body.executions.length;
    const res = await start([], { [field]: value });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
    expect((await api(app.baseUrl, 'GET', `/v1/conversations/${app.conversationId}`)).body.executions).toHaveLength(before);
  });

  it("a scripted action step's timeoutMs is checked with the config's shape", async () => {
    const res = await start([{ type: 'action', kind: 'approval', prompt: 'ok?', timeoutMs: 0 }]);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/timeoutMs/);
  });

  it('an idempotent replay compares the timeouts like every other field', async () => {
    const body = { conversationId: app.conversationId, provider: 'scripted', input: { text: 'once' }, idempotencyKey: 'deadline-key', timeoutMs: 60_000 };
    expect((await postExecution(app.baseUrl, body)).status).toBe(201);
    expect((await postExecution(app.baseUrl, body)).status).toBe(200);
    expectError(await postExecution(app.baseUrl, { ...body, timeoutMs: 60_001 }), 409, 'IDEMPOTENCY_CONFLICT');
    expectError(await postExecution(app.baseUrl, { ...body, actionTimeoutMs: 5 }), 409, 'IDEMPOTENCY_CONFLICT');
  });

  it('a deadline during streaming stops the provider, runs its cleanup first, and ends the run DEADLINE_EXCEEDED', async () => {
    const script = [
      { type: 'text', text: 'started ' },
      { type: 'delay', ms: 30_000 },
      { type: 'text', text: 'never' },
    ];
    const res = await start(script, { timeoutMs: 300 }, { cleanupDelayMs: 200 });
    const done = await waitForExecutionEnd(app.baseUrl, res.body.id);
    expect(done).toMatchObject({ status: 'failed', outputText: null, error: { code: 'DEADLINE_EXCEEDED', message: expect.any(String) } });
    const events = await replay(app.baseUrl, res.body.id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.failed']);
    // Not before the deadline, and after the 200 ms cleanup.
    expect(msBetween(events[0].occurredAt, events[3].occurredAt)).toBeGreaterThanOrEqual(500);
    expect(msBetween(events[0].occurredAt, events[3].occurredAt)).toBeLessThan(5_000);
  });

  it('a deadline during a pending approval ends the run DEADLINE_EXCEEDED and cancels the action', async () => {
    const res = await start(
      [
        { type: 'action', kind: 'approval', prompt: 'ship?' },
        { type: 'text', text: 'shipped' },
      ],
      { timeoutMs: 300 },
    );
    const waiting = await waitForAction(app.baseUrl, res.body.id);
    const [actionId] = waiting.pendingActionIds;
    const done = await waitForExecutionEnd(app.baseUrl, res.body.id);
    expect(done).toMatchObject({ status: 'failed', pendingActionIds: [], error: { code: 'DEADLINE_EXCEEDED' } });
    const events = await replay(app.baseUrl, res.body.id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'action.required', 'run.failed']);
    expect(events[2].data).not.toHaveProperty('expiresAt');
    expect(msBetween(events[0].occurredAt, events[3].occurredAt)).toBeGreaterThanOrEqual(300);
    expect(await listActions(app.baseUrl, res.body.id)).toEqual([expect.objectContaining({ id: actionId, status: 'cancelled', resolvedAt: ISO })]);
    expectError(await respond(app.baseUrl, res.body.id, actionId, { decision: 'approve' }), 409, 'INVALID_STATE');
  });

  it('an action unanswered for actionTimeoutMs ends the run ACTION_EXPIRED at its expiresAt', async () => {
    const res = await start(
      [
        { type: 'action', kind: 'input', prompt: 'branch?' },
        { type: 'text', text: 'never' },
      ],
      { actionTimeoutMs: 300 },
    );
    const done = await waitForExecutionEnd(app.baseUrl, res.body.id);
    expect(done).toMatchObject({ status: 'failed', pendingActionIds: [], error: { code: 'ACTION_EXPIRED' } });
    const events = await replay(app.baseUrl, res.body.id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'action.required', 'run.failed']);
    const { expiresAt } = events[2].data;
    expect(expiresAt).toEqual(ISO);
    expect(msBetween(events[2].occurredAt, expiresAt)).toBeGreaterThanOrEqual(295);
    expect(msBetween(events[2].occurredAt, expiresAt)).toBeLessThanOrEqual(400);
    expect(Date.parse(events[3].occurredAt)).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    expect((await listActions(app.baseUrl, res.body.id))[0]).toMatchObject({ status: 'cancelled' });
  });

  it("the step's own timeoutMs wins over actionTimeoutMs, and an answer in time lets the run go on", async () => {
    const script = [
      { type: 'action', kind: 'approval', prompt: 'first?' },
      { type: 'action', kind: 'approval', prompt: 'second?', timeoutMs: 300 },
      { type: 'text', text: 'never' },
    ];
    const res = await start(script, { actionTimeoutMs: 60_000 });
    const first = (await waitForAction(app.baseUrl, res.body.id)).pendingActionIds[0];
    expect((await respond(app.baseUrl, res.body.id, first, { decision: 'approve' })).status).toBe(200);
    const done = await waitForExecutionEnd(app.baseUrl, res.body.id);
    expect(done.error.code).toBe('ACTION_EXPIRED');
    const asked = (await replay(app.baseUrl, res.body.id)).filter((e) => e.type === 'action.required');
    expect(msBetween(asked[0].occurredAt, asked[0].data.expiresAt)).toBeGreaterThanOrEqual(59_900);
    expect(msBetween(asked[1].occurredAt, asked[1].data.expiresAt)).toBeLessThanOrEqual(400);
  });

  // Several rounds, answering around the expiry, since which one lands first differs.
  it.each([40, 45, 50, 55, 60, 65])(
    'an answer racing its expiry: exactly one terminal event, and the answer agrees with it (answered at %i ms)',
    async (answerAfter) => {
      const res = await start([
        { type: 'action', kind: 'approval', prompt: 'now?', timeoutMs: 50 },
        { type: 'text', text: 'answered' },
      ]);
      const [actionId] = (await waitForAction(app.baseUrl, res.body.id)).pendingActionIds;
      const asked = (await replay(app.baseUrl, res.body.id))[2];
      await sleep(Math.max(0, Date.parse(asked.occurredAt) + answerAfter - Date.now()));
      const answer = await respond(app.baseUrl, res.body.id, actionId, { decision: 'approve' });
      const done = await waitForExecutionEnd(app.baseUrl, res.body.id);
      const events = await replay(app.baseUrl, res.body.id);
      expect(terminalEvents(events)).toHaveLength(1);
      expect(events.at(-1).type).toBe(done.status === 'completed' ? 'run.completed' : 'run.failed');
      if (answer.status === 200) {
        expect(done).toMatchObject({ status: 'completed', outputText: 'answered' });
        expect(countOf(events, 'action.responded')).toBe(1);
      } else {
        expectError(answer, 409, 'INVALID_STATE');
        expect(done).toMatchObject({ status: 'failed', error: { code: 'ACTION_EXPIRED' } });
        expect(countOf(events, 'action.responded')).toBe(0);
      }
    },
  );

  it('a cancel racing the deadline: exactly one terminal event, and the cancel answers as its outcome says', async () => {
    for (const cancelAfter of [250, 290, 300, 310]) {
      const res = await start([{ type: 'delay', ms: 30_000 }], { timeoutMs: 300 }, { cleanup: 'fail' });
      await sleep(Math.max(0, Date.parse(res.body.createdAt) + cancelAfter - Date.now()));
      const cancelled = await cancel(app.baseUrl, res.body.id, { reason: 'racing' });
      const done = await waitForExecutionEnd(app.baseUrl, res.body.id);
      const events = await replay(app.baseUrl, res.body.id);
      expect(terminalEvents(events)).toHaveLength(1);
      if (cancelled.status === 200) {
        expect(done).toMatchObject({ status: 'cancelled', cancellation: { reason: 'racing', providerCleanupError: 'scripted cleanup failed' } });
      } else {
        expectError(cancelled, 409, 'INVALID_STATE');
        expect(done.error.code).toBe('DEADLINE_EXCEEDED');
      }
    }
  });

  it('a run that completes before its deadline is left alone by it', async () => {
    const res = await start([{ type: 'text', text: 'in time' }], { timeoutMs: 300 });
    expect((await waitForExecutionEnd(app.baseUrl, res.body.id)).status).toBe('completed');
    await sleep(400);
    const events = await replay(app.baseUrl, res.body.id);
    expect(terminalEvents(events)).toEqual([expect.objectContaining({ type: 'run.completed' })]);
  });

  it('EXECUTION_TIMEOUT_MS is the timeoutMs of a run started without one', async () => {
    const other = await startApp({ executionTimeoutMs: 300 });
    try {
      const conversationId = await createConversation(other.baseUrl);
      const res = await startScript(other.baseUrl, conversationId, [{ type: 'delay', ms: 30_000 }]);
      expect(res.timeoutMs).toBe(300);
      const own = await startExecution(other.baseUrl, { conversationId, timeoutMs: 60_000, config: { script: [] } });
      expect(own.body.timeoutMs).toBe(60_000);
      expect((await waitForExecution(other.baseUrl, res.id)).error.code).toBe('DEADLINE_EXCEEDED');
    } finally {
      await other.close();
    }
  });
});

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'main.js');
const describeBuilt = existsSync(MAIN) ? describe : describe.skip;

/** The compiled server, a process of its own (another instance id), on the store of `startApp({ sqlitePath })`. */
async function startServer(sqlitePath: string): Promise<{ child: ChildProcess; baseUrl: string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [MAIN], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', SQLITE_PATH: sqlitePath, LOG_LEVEL: 'info', EVENT_STORE: 'sqlite', ...(await storeEnv(sqlitePath)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stdout = '';
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      const match = /serving on (http:\/\/[^\s"]+)/.exec(stdout);
      if (match) resolve(match[1].replace(/\/$/, ''));
    });
    void exited.then((code) => reject(new Error(`server exited (${code}) before serving`)));
  });
  return { child, baseUrl, exited };
}

describeBuilt('deadlines across a restart (compiled server, then a fresh one)', () => {
  it('a deadline that passed while no server ran ends the run DEADLINE_EXCEEDED at the next start; one not yet passed, RUNTIME_INTERRUPTED', async () => {
    const sqlitePath = tempSqlitePath();
    const first = await startServer(sqlitePath);
    let firstStopped = false;
    try {
      const conversationId = await createConversation(first.baseUrl);
      const approval = [{ type: 'action', kind: 'approval', prompt: 'wait' }];
      const passing = await startScript(first.baseUrl, conversationId, approval, {});
      const passingWithDeadline = await startExecution(first.baseUrl, { conversationId, timeoutMs: 1_500, config: { script: approval } });
      const far = await startExecution(first.baseUrl, { conversationId, timeoutMs: 600_000, config: { script: approval } });
      const expiring = await startExecution(first.baseUrl, { conversationId, actionTimeoutMs: 1_500, config: { script: approval } });
      for (const id of [passing.id, passingWithDeadline.body.id, far.body.id, expiring.body.id]) await waitForAction(first.baseUrl, id);
      const { expiresAt } = (await replay(first.baseUrl, expiring.body.id))[2].data;
      first.child.kill('SIGTERM');
      expect(await first.exited).toBe(0);
      firstStopped = true;
      const stoppedAt = Date.now();
      const passed = Math.max(Date.parse(passingWithDeadline.body.createdAt) + 1_500, Date.parse(expiresAt));
      await sleep(Math.max(0, passed + 100 - Date.now()));

      const second = await startApp({ sqlitePath });
      try {
        const ended = async (id: string) => (await api(second.baseUrl, 'GET', `/v1/executions/${id}`)).body;
        expect((await ended(passingWithDeadline.body.id)).error.code).toBe('DEADLINE_EXCEEDED');
        expect((await ended(expiring.body.id)).error.code).toBe('ACTION_EXPIRED');
        expect((await ended(far.body.id)).error.code).toBe('RUNTIME_INTERRUPTED');
        expect((await ended(passing.id)).error.code).toBe('RUNTIME_INTERRUPTED');
        const events = await replay(second.baseUrl, passingWithDeadline.body.id);
        expect(terminalEvents(events)).toHaveLength(1);
        // Ended by the next start, not by the first server before it stopped.
        expect(Date.parse(events.at(-1).occurredAt)).toBeGreaterThanOrEqual(stoppedAt);
        expect(terminalEvents(await replay(second.baseUrl, expiring.body.id))[0].occurredAt >= new Date(stoppedAt).toISOString()).toBe(true);
        expect(Date.parse(events.at(-1).occurredAt)).toBeGreaterThanOrEqual(Date.parse(passingWithDeadline.body.createdAt) + 1_500);
      } finally {
        await second.close();
      }
    } finally {
      if (!firstStopped) first.child.kill('SIGKILL');
    }
  }, 60_000);
});
