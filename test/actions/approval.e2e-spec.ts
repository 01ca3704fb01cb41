import { api, useApp } from '../support/app-harness';
import { countOf, expectError, ISO, listActions, replay, respond, startScript, typesOf, waitForAction, waitForStatus } from '../support/execution-helpers';

const approval = (prompt = 'Deploy to production?') => ({ type: 'action', kind: 'approval', prompt });

describe('approval actions (docs/api.md#actions)', () => {
  const app = useApp({ conversation: true });

  it('action.required moves the execution to requires_action and lists the action', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'text', text: 'before ' }, approval()]);
    const waiting = await waitForAction(app.baseUrl, started.id);
    expect(waiting.status).toBe('requires_action');
    expect(waiting.pendingActionIds).toHaveLength(1);

    const events = await replay(app.baseUrl, started.id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'action.required']);
    const required = events[3];
    expect(required.data).toEqual({
      actionId: waiting.pendingActionIds[0],
      kind: 'approval',
      prompt: 'Deploy to production?',
      inputSchema: null,
      tool: null,
    });

    const res = await api(app.baseUrl, 'GET', `/v1/executions/${started.id}/actions`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      actions: [
        {
          id: waiting.pendingActionIds[0],
          executionId: started.id,
          kind: 'approval',
          prompt: 'Deploy to production?',
          inputSchema: null,
          tool: null,
          status: 'pending',
          response: null,
          createdAt: required.occurredAt,
          resolvedAt: null,
        },
      ],
    });
    // Key order of the Action resource as the binding writes it.
    expect(Object.keys(res.body.actions[0])).toEqual([
      'id',
      'executionId',
      'kind',
      'prompt',
      'inputSchema',
      'tool',
      'status',
      'response',
      'createdAt',
      'resolvedAt',
    ]);
  });

  it('approve: 200 resolved Action, exactly one action.responded, and the provider continues to completion', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [approval(), { type: 'text', text: 'deployed' }]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;

    const res = await respond(app.baseUrl, started.id, actionId, { decision: 'approve' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: actionId,
      executionId: started.id,
      kind: 'approval',
      prompt: 'Deploy to production?',
      inputSchema: null,
      tool: null,
      status: 'resolved',
      response: { decision: 'approve' },
      createdAt: ISO,
      resolvedAt: ISO,
    });

    const done = await waitForStatus(app.baseUrl, started.id, 'completed');
    expect(done).toMatchObject({ status: 'completed', outputText: 'deployed', pendingActionIds: [], error: null });
    const events = await replay(app.baseUrl, started.id);
    expect(typesOf(events)).toEqual([
      'run.queued',
      'run.started',
      'action.required',
      'action.responded',
      'output.text.delta',
      'output.text.done',
      'run.completed',
    ]);
    expect(events[3].data).toEqual({ actionId, response: { decision: 'approve' } });
    expect(events[3].occurredAt).toBe(res.body.resolvedAt);
    expect(await listActions(app.baseUrl, started.id)).toEqual([res.body]);
  });

  it('deny: the run fails with ACTION_DENIED and keeps the comment as sent', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [approval(), { type: 'text', text: 'never' }]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;

    const res = await respond(app.baseUrl, started.id, actionId, { decision: 'deny', comment: 'not on a Friday' });
    expect(res.status).toBe(200);
    expect(res.body.response).toEqual({ decision: 'deny', comment: 'not on a Friday' });

    const failed = await waitForStatus(app.baseUrl, started.id, 'failed');
    expect(failed.error).toEqual({ code: 'ACTION_DENIED', message: expect.any(String) });
    expect(failed.outputText).toBeNull();
    const events = await replay(app.baseUrl, started.id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'action.required', 'action.responded', 'run.failed']);
    expect(events[4].data).toEqual({ error: failed.error, usage: null });
    expect(countOf(events, 'output.text.delta')).toBe(0);
  });

  it('comment: null is stored as absent, so the response is exactly {decision}', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [approval()]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;

    const res = await respond(app.baseUrl, started.id, actionId, { decision: 'approve', comment: null });
    expect(res.status).toBe(200);
    expect(res.body.response).toEqual({ decision: 'approve' });
    expect(Object.keys(res.body.response)).toEqual(['decision']);
    await waitForStatus(app.baseUrl, started.id, 'completed');
    const responded = (await replay(app.baseUrl, started.id)).find((e) => e.type === 'action.responded');
    expect(responded.data.response).toEqual({ decision: 'approve' });
    expect('comment' in responded.data.response).toBe(false);
  });

  it('comment counts code points: 2000 emoji pass, 2001 or empty are 400 and leave the action pending', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [approval()]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;

    const tooLong = await respond(app.baseUrl, started.id, actionId, { decision: 'approve', comment: '😀'.repeat(2001) });
    expectError(tooLong, 400, 'VALIDATION_ERROR');
    const empty = await respond(app.baseUrl, started.id, actionId, { decision: 'approve', comment: '' });
    expectError(empty, 400, 'VALIDATION_ERROR');
    const notString = await respond(app.baseUrl, started.id, actionId, { decision: 'approve', comment: 42 });
    expectError(notString, 400, 'VALIDATION_ERROR');
    expect((await listActions(app.baseUrl, started.id))[0]).toMatchObject({ status: 'pending', response: null });

    // 2000 code points are 4000 UTF-16 units: the limit is in code points.
    const comment = '😀'.repeat(2000);
    const ok = await respond(app.baseUrl, started.id, actionId, { decision: 'approve', comment });
    expect(ok.status).toBe(200);
    expect(ok.body.response).toEqual({ decision: 'approve', comment });
    await waitForStatus(app.baseUrl, started.id, 'completed');
    expect(countOf(await replay(app.baseUrl, started.id), 'action.responded')).toBe(1);
  });

  it('approval bodies of the wrong shape are 400: bad decision, missing decision, unknown field, input body', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [approval()]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    for (const body of [{ decision: 'maybe' }, {}, { decision: 'approve', extra: 1 }, { value: true }, { decision: null }]) {
      expectError(await respond(app.baseUrl, started.id, actionId, body), 400, 'VALIDATION_ERROR');
    }
    expect(countOf(await replay(app.baseUrl, started.id), 'action.responded')).toBe(0);
  });

  it('two actions in a row: each waits for its own answer, listed in creation order', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      approval('first?'),
      { type: 'text', text: 'one ' },
      { type: 'action', kind: 'input', prompt: 'second?' },
      { type: 'text', text: 'two' },
    ]);
    const [first] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    expect(await respond(app.baseUrl, started.id, first, { decision: 'approve' })).toMatchObject({ status: 200 });

    // Read-your-writes: the first action is resolved in every later GET, so the next pending one is the second.
    const [second] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    expect(second).not.toBe(first);
    const actions = await listActions(app.baseUrl, started.id);
    expect(actions.map((a) => [a.id, a.prompt, a.status])).toEqual([
      [first, 'first?', 'resolved'],
      [second, 'second?', 'pending'],
    ]);
    expect(actions[0].createdAt <= actions[1].createdAt).toBe(true);

    const res = await respond(app.baseUrl, started.id, second, { value: 'ok' });
    expect(res.status).toBe(200);
    const done = await waitForStatus(app.baseUrl, started.id, 'completed');
    expect(done).toMatchObject({ outputText: 'one two', pendingActionIds: [] });
    expect(typesOf(await replay(app.baseUrl, started.id))).toEqual([
      'run.queued',
      'run.started',
      'action.required',
      'action.responded',
      'output.text.delta',
      'action.required',
      'action.responded',
      'output.text.delta',
      'output.text.done',
      'run.completed',
    ]);
  });
});
