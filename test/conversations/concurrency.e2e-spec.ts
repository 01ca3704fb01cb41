import { api, createConversation, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { cancel, countOf, expectError, replay, respond, typesOf, waitForAction, waitForStatus } from '../support/execution-helpers';

/**
 * docs/api.md#concurrency: what a start does to the other executions of its conversation that
 * have not ended. Races go through real HTTP at once; the decisions come from the turns stream's
 * expected revision (docs/design.md#concurrency).
 */
describe('concurrency policies', () => {
  const app = useApp();
  const blocking = [{ type: 'action', kind: 'approval', prompt: 'go?' }];
  const start = (conversationId: string, body: Record<string, unknown> = {}) => startExecution(app.baseUrl, { conversationId, ...body });
  const conversation = (body: Record<string, unknown> = {}) => createConversation(app.baseUrl, body);
  const approve = async (id: string) => {
    const execution = await waitForAction(app.baseUrl, id);
    expect((await respond(app.baseUrl, id, execution.pendingActionIds[0], { decision: 'approve' })).status).toBe(200);
  };
  const eventCount = async () => (await api(app.baseUrl, 'GET', '/v1/events?limit=1000')).body.events.length;

  describe('reject', () => {
    it('409 INVALID_STATE while another execution is not terminal, 201 once it has ended', async () => {
      const c = await conversation();
      const first = await start(c, { config: { script: blocking } });
      expect(first.status).toBe(201);
      await waitForAction(app.baseUrl, first.body.id);
      const before = await eventCount();
      expectError(await start(c, { concurrency: 'reject' }), 409, 'INVALID_STATE');
      expect(await eventCount()).toBe(before);
      await approve(first.body.id);
      await waitForExecution(app.baseUrl, first.body.id);
      const next = await start(c, { concurrency: 'reject' });
      expect(next.status).toBe(201);
      expect(next.body.concurrency).toBe('reject');
      expect((await waitForExecution(app.baseUrl, next.body.id)).status).toBe('completed');
    });

    it('20 concurrent reject starts into an idle conversation: exactly one 201, nineteen 409', async () => {
      const c = await conversation();
      const answers = await Promise.all(Array.from({ length: 20 }, () => start(c, { concurrency: 'reject', config: { script: blocking } })));
      const created = answers.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      for (const refused of answers.filter((r) => r.status !== 201)) expectError(refused, 409, 'INVALID_STATE');
      const listed = (await api(app.baseUrl, 'GET', `/v1/conversations/${c}`)).body.executions;
      expect(listed.map((e: any) => e.id)).toEqual([created[0].body.id]);
      await cancel(app.baseUrl, created[0].body.id);
    });
  });

  describe('enqueue', () => {
    it('20 concurrent enqueue starts run one at a time, in creation order', async () => {
      const c = await conversation({ concurrency: 'enqueue' });
      const script = [
        { type: 'text', text: 'x' },
        { type: 'delay', ms: 5 },
        { type: 'text', text: 'y' },
      ];
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => start(c, { input: { text: `turn ${i}` }, config: { script } })));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(201));
      for (const r of answers) expect(r.body.concurrency).toBe('enqueue');
      const ids = (await api(app.baseUrl, 'GET', `/v1/conversations/${c}`)).body.executions.map((e: any) => e.id);
      expect([...ids].sort()).toEqual(answers.map((r) => r.body.id).sort());
      for (const id of ids) expect((await waitForExecution(app.baseUrl, id, undefined, 20_000)).status).toBe('completed');
      // Each run.started comes after the previous execution's terminal event, in creation order.
      const feed = (await api(app.baseUrl, 'GET', '/v1/events?limit=1000')).body.events.filter((e: any) => ids.includes(e.executionId));
      const position = (id: string, type: string) => feed.find((e: any) => e.executionId === id && e.type === type).position;
      for (let i = 1; i < ids.length; i++) expect(position(ids[i], 'run.started')).toBeGreaterThan(position(ids[i - 1], 'run.completed'));
    }, 30_000);

    it('a queued execution can be cancelled, and then blocks nothing behind it', async () => {
      const c = await conversation();
      const first = (await start(c, { config: { script: blocking } })).body;
      const queued = (await start(c, { concurrency: 'enqueue' })).body;
      const last = (await start(c, { concurrency: 'enqueue' })).body;
      expect([queued.status, last.status]).toEqual(['queued', 'queued']);
      const cancelled = await cancel(app.baseUrl, queued.id, { reason: 'not needed' });
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'not needed', providerCleanupError: null } });
      expect(typesOf(await replay(app.baseUrl, queued.id))).toEqual(['run.queued', 'run.cancelled']);
      expect((await api(app.baseUrl, 'GET', `/v1/executions/${last.id}`)).body.status).toBe('queued');
      await approve(first.id);
      expect((await waitForExecution(app.baseUrl, last.id)).status).toBe('completed');
    });

    it("a queued execution's deadline counts from run.queued", async () => {
      const c = await conversation();
      const first = (await start(c, { config: { script: blocking } })).body;
      const queued = (await start(c, { concurrency: 'enqueue', timeoutMs: 300 })).body;
      const ended = await waitForExecution(app.baseUrl, queued.id);
      expect(ended).toMatchObject({ status: 'failed', error: { code: 'DEADLINE_EXCEEDED' }, startedAt: null });
      await cancel(app.baseUrl, first.id);
    });
  });

  describe('interrupt', () => {
    it('cancels every execution not ended, each with one cleanup and the reason, then starts', async () => {
      const c = await conversation();
      const config = { script: blocking, cleanup: 'fail', cleanupDelayMs: 100 };
      const running = [(await start(c, { config })).body, (await start(c, { config })).body];
      await Promise.all(running.map((e) => waitForStatus(app.baseUrl, e.id, 'requires_action')));
      const waiting = (await start(c, { concurrency: 'enqueue', config })).body;
      const interrupter = await start(c, { concurrency: 'interrupt' });
      expect(interrupter.status).toBe(201);
      expect(interrupter.body).toMatchObject({ status: 'queued', concurrency: 'interrupt' });
      const reason = `interrupted by execution ${interrupter.body.id}`;
      for (const e of running) {
        const ended = await waitForExecution(app.baseUrl, e.id);
        expect(ended).toMatchObject({ status: 'cancelled', cancellation: { reason, providerCleanupError: 'scripted cleanup failed' } });
        expect(countOf(await replay(app.baseUrl, e.id), 'run.cancelled')).toBe(1);
      }
      // Never started, so no cleanup to run.
      expect(await waitForExecution(app.baseUrl, waiting.id)).toMatchObject({ status: 'cancelled', cancellation: { reason, providerCleanupError: null } });
      const done = await waitForExecution(app.baseUrl, interrupter.body.id);
      expect(done.status).toBe('completed');
      const startedAt = Date.parse(done.startedAt);
      for (const e of running) expect(startedAt).toBeGreaterThanOrEqual(Date.parse((await api(app.baseUrl, 'GET', `/v1/executions/${e.id}`)).body.endedAt));
    });

    it('into an idle conversation it starts at once', async () => {
      const c = await conversation();
      const res = await start(c, { concurrency: 'interrupt' });
      expect(res.status).toBe(201);
      expect((await waitForExecution(app.baseUrl, res.body.id)).status).toBe('completed');
    });
  });

  describe('the conversation default and the override', () => {
    it('the conversation shows its default; an execution inherits it unless it says otherwise', async () => {
      const created = await api(app.baseUrl, 'POST', '/v1/conversations', { title: 't', concurrency: 'reject' });
      expect(created.status).toBe(201);
      expect(Object.keys(created.body)).toEqual(['id', 'title', 'metadata', 'concurrency', 'createdAt', 'executions']);
      expect(created.body.concurrency).toBe('reject');
      expect((await api(app.baseUrl, 'GET', `/v1/conversations/${created.body.id}`)).body).toEqual(created.body);
      const c = created.body.id;
      const first = await start(c, { config: { script: blocking } });
      expect(first.body.concurrency).toBe('reject');
      const events = await replay(app.baseUrl, first.body.id);
      expect(events[0].data.concurrency).toBe('reject');
      expectError(await start(c), 409, 'INVALID_STATE');
      const parallel = await start(c, { concurrency: 'parallel' });
      expect(parallel.status).toBe(201);
      expect(parallel.body.concurrency).toBe('parallel');
      await cancel(app.baseUrl, first.body.id);
      await waitForExecution(app.baseUrl, parallel.body.id);
    });

    it('without one anywhere, nothing is recorded or shown: parallel, as before', async () => {
      const c = await conversation();
      expect((await api(app.baseUrl, 'GET', `/v1/conversations/${c}`)).body).not.toHaveProperty('concurrency');
      const res = await start(c);
      expect(res.body).not.toHaveProperty('concurrency');
      expect((await replay(app.baseUrl, res.body.id))[0].data).not.toHaveProperty('concurrency');
      await waitForExecution(app.baseUrl, res.body.id);
    });
  });

  describe('bad values', () => {
    it.each([['serial'], [''], [1], [true], [{}], [['reject']], ['REJECT']])('%j answers 400 with nothing appended', async (value) => {
      const c = await conversation();
      const before = await eventCount();
      expectError(await api(app.baseUrl, 'POST', '/v1/conversations', { concurrency: value }), 400, 'VALIDATION_ERROR');
      expectError(await start(c, { concurrency: value }), 400, 'VALIDATION_ERROR');
      expect(await eventCount()).toBe(before);
    });

    it('null reads as absent', async () => {
      const created = await api(app.baseUrl, 'POST', '/v1/conversations', { concurrency: null });
      expect(created.status).toBe(201);
      expect(created.body).not.toHaveProperty('concurrency');
      const res = await start(created.body.id, { concurrency: null });
      expect(res.status).toBe(201);
      await waitForExecution(app.baseUrl, res.body.id);
    });
  });

  describe('idempotent replays', () => {
    it('compare concurrency like every other field', async () => {
      const c = await conversation();
      const idempotencyKey = 'concurrency-replay-key-0001';
      const first = await start(c, { idempotencyKey, concurrency: 'enqueue' });
      expect(first.status).toBe(201);
      const again = await start(c, { idempotencyKey, concurrency: 'enqueue' });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.body.id);
      expectError(await start(c, { idempotencyKey, concurrency: 'reject' }), 409, 'IDEMPOTENCY_CONFLICT');
      expectError(await start(c, { idempotencyKey }), 409, 'IDEMPOTENCY_CONFLICT');
      const plain = 'concurrency-replay-key-0002';
      expect((await start(c, { idempotencyKey: plain })).status).toBe(201);
      expectError(await start(c, { idempotencyKey: plain, concurrency: 'parallel' }), 409, 'IDEMPOTENCY_CONFLICT');
      await waitForExecution(app.baseUrl, first.body.id);
    });
  });
});
