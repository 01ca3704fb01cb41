import { api, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { cancel, countOf, expectError, replay, startScript, typesOf, waitForExecutionEnd } from '../support/execution-helpers';

const lastType = (events: any[]) => events[events.length - 1].type;

describe('cancellation (docs/api.md#cancellation)', () => {
  const app = useApp({ conversation: true });

  const running = async (config: Record<string, unknown> = {}) => {
    const started = await startScript(
      app.baseUrl,
      app.conversationId,
      [
        { type: 'text', text: 'partial ' },
        { type: 'delay', ms: 30000 },
        { type: 'text', text: 'never' },
      ],
      config,
    );
    await pastFirstDelta(started.id);
    return started.id as string;
  };
  // Running, and past the first delta: the delay is what the cancel interrupts.
  const pastFirstDelta = (id: string) => waitForExecution(app.baseUrl, id, (e) => e.lastSequence >= 3 || (e.status !== 'queued' && e.status !== 'running'));

  it('cancels a running execution: 200 cancelled, one run.cancelled, nothing after it, partial text kept in deltas', async () => {
    const id = await running();
    const res = await cancel(app.baseUrl, id, { reason: 'user pressed stop' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id,
      status: 'cancelled',
      cancellation: { reason: 'user pressed stop', providerCleanupError: null },
      outputText: null,
      error: null,
      pendingActionIds: [],
      endedAt: expect.any(String),
    });
    expect(Object.keys(res.body.cancellation)).toEqual(['reason', 'providerCleanupError']);
    // Read-your-writes: the GET right after shows the same state.
    expect((await api(app.baseUrl, 'GET', `/v1/executions/${id}`)).body).toEqual(res.body);

    const events = await replay(app.baseUrl, id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.cancelled']);
    expect(events[3].data).toEqual({ reason: 'user pressed stop', providerCleanupError: null, usage: null });
    expect(res.body.lastSequence).toBe(4);
  });

  it('without a body, or with reason null, the reason is null', async () => {
    const id = await running();
    const res = await api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`);
    expect(res.status).toBe(200);
    expect(res.body.cancellation).toEqual({ reason: null, providerCleanupError: null });
    const other = await running();
    expect((await cancel(app.baseUrl, other, { reason: null })).body.cancellation).toEqual({ reason: null, providerCleanupError: null });
  });

  it('cancels a just-started execution (possibly still queued) the same way, cleanup included', async () => {
    const started = await startExecution(app.baseUrl, {
      conversationId: app.conversationId,
      config: {
        script: [
          { type: 'delay', ms: 30000 },
          { type: 'text', text: 'never' },
        ],
        cleanup: 'fail',
      },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 'queued', lastSequence: 1 });
    const res = await cancel(app.baseUrl, started.body.id, { reason: 'too late' });
    expect(res.status).toBe(200);
    // The provider's cleanup ran for it too: cleanup "fail" reports its error.
    expect(res.body).toMatchObject({
      status: 'cancelled',
      cancellation: { reason: 'too late', providerCleanupError: 'scripted cleanup failed' },
      outputText: null,
    });
    const events = await replay(app.baseUrl, started.body.id);
    expect(countOf(events, 'run.cancelled')).toBe(1);
    expect(lastType(events)).toBe('run.cancelled');
    expect(countOf(events, 'output.text.delta')).toBe(0);
  });

  it('an already cancelled execution answers 200 with the same state and appends nothing', async () => {
    const id = await running();
    const first = await cancel(app.baseUrl, id, { reason: 'first' });
    const before = await replay(app.baseUrl, id);
    const again = await cancel(app.baseUrl, id, { reason: 'second' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.body.cancellation.reason).toBe('first');
    expect(await replay(app.baseUrl, id)).toEqual(before);
  });

  it('completed and failed executions answer 409 INVALID_STATE and append nothing', async () => {
    const completed = await startScript(app.baseUrl, app.conversationId, [{ type: 'text', text: 'done' }]);
    expect((await waitForExecutionEnd(app.baseUrl, completed.id)).status).toBe('completed');
    const failed = await startScript(app.baseUrl, app.conversationId, [{ type: 'fail', message: 'boom' }]);
    expect((await waitForExecutionEnd(app.baseUrl, failed.id)).status).toBe('failed');
    for (const id of [completed.id, failed.id]) {
      const before = await replay(app.baseUrl, id);
      expectError(await cancel(app.baseUrl, id, { reason: 'why not' }), 409, 'INVALID_STATE');
      expectError(await cancel(app.baseUrl, id), 409, 'INVALID_STATE');
      expect(await replay(app.baseUrl, id)).toEqual(before);
    }
  });

  it('reason: empty or over 500 code points is 400, checked before the execution is looked up', async () => {
    const id = await running();
    for (const target of [id, 'no-such-execution']) {
      expectError(await cancel(app.baseUrl, target, { reason: '' }), 400, 'VALIDATION_ERROR');
      expectError(await cancel(app.baseUrl, target, { reason: 'x'.repeat(501) }), 400, 'VALIDATION_ERROR');
      expectError(await cancel(app.baseUrl, target, { reason: '🛑'.repeat(501) }), 400, 'VALIDATION_ERROR');
      expectError(await cancel(app.baseUrl, target, { reason: 42 }), 400, 'VALIDATION_ERROR');
      expectError(await cancel(app.baseUrl, target, { reason: 'ok', force: true }), 400, 'VALIDATION_ERROR');
    }
    expect((await api(app.baseUrl, 'GET', `/v1/executions/${id}`)).body.status).toBe('running');
    // 500 code points (1000 UTF-16 units) is within the limit.
    const reason = '🛑'.repeat(500);
    const res = await cancel(app.baseUrl, id, { reason });
    expect(res.status).toBe(200);
    expect(res.body.cancellation.reason).toBe(reason);
  });

  it('an unknown execution is 404 NOT_FOUND', async () => {
    expectError(await cancel(app.baseUrl, 'no-such-execution', { reason: 'x' }), 404, 'NOT_FOUND');
    expectError(await cancel(app.baseUrl, 'no-such-execution'), 404, 'NOT_FOUND');
  });

  it('a failing cleanup is reported in providerCleanupError, never as an HTTP error', async () => {
    const id = await running({ cleanup: 'fail' });
    const res = await cancel(app.baseUrl, id, { reason: 'stop' });
    expect(res.status).toBe(200);
    expect(res.body.cancellation).toEqual({ reason: 'stop', providerCleanupError: 'scripted cleanup failed' });
    const events = await replay(app.baseUrl, id);
    expect(events[events.length - 1]).toMatchObject({
      type: 'run.cancelled',
      data: { reason: 'stop', providerCleanupError: 'scripted cleanup failed' },
    });
  });

  it('output after an accepted cancel is discarded: none of the later text steps appear', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'text', text: 'one ' },
      { type: 'delay', ms: 30000 },
      ...Array.from({ length: 20 }, (_, i) => ({ type: 'text', text: `late${i} ` })),
      { type: 'artifact', name: 'late.txt', mediaType: 'text/plain' },
    ]);
    await pastFirstDelta(started.id);
    expect((await cancel(app.baseUrl, started.id)).status).toBe(200);
    // Give a misbehaving runner every chance to append after the terminal event.
    await new Promise((r) => setTimeout(r, 100));
    const events = await replay(app.baseUrl, started.id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.cancelled']);
    expect(events.filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta)).toEqual(['one ']);
    const final = await api(app.baseUrl, 'GET', `/v1/executions/${started.id}`);
    expect(final.body).toMatchObject({ status: 'cancelled', artifactCount: 0, outputText: null, lastSequence: 4 });
  });

  it('a cancel while text streams: whatever was appended before run.cancelled stays, nothing follows it', async () => {
    const steps = Array.from({ length: 200 }, (_, i) => ({ type: 'text', text: `w${i} ` }));
    const started = await startScript(app.baseUrl, app.conversationId, steps);
    const res = await cancel(app.baseUrl, started.id, { reason: 'mid-stream' });
    const events = await replay(app.baseUrl, started.id);
    const terminal = events.filter((e) => ['run.completed', 'run.failed', 'run.cancelled'].includes(e.type));
    expect(terminal).toHaveLength(1);
    expect(terminal[0]).toBe(events[events.length - 1]);
    if (res.status === 200) {
      expect(terminal[0].type).toBe('run.cancelled');
      expect(countOf(events, 'output.text.done')).toBe(0);
      expect(res.body.lastSequence).toBe(events.length);
    } else {
      expectError(res, 409, 'INVALID_STATE');
      expect(terminal[0].type).toBe('run.completed');
    }
  });
});
