import { api, JsonResponse, useApp } from '../support/app-harness';
import { cancel, countOf, expectError, listActions, replay, respond, startScript, waitForAction, waitForExecutionEnd } from '../support/execution-helpers';

const TERMINAL = ['run.completed', 'run.failed', 'run.cancelled'];

describe('races: one accepted answer per action, one terminal event per execution (docs/api.md#actions)', () => {
  const app = useApp({ conversation: true });

  it('10 concurrent answers to one action: exactly one 200, nine 409 ACTION_ALREADY_RESOLVED, one action.responded', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'action', kind: 'approval', prompt: 'ship?' },
      { type: 'text', text: 'shipped' },
    ]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;

    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => respond(app.baseUrl, started.id, actionId, { decision: 'approve', comment: `answer ${i}` })),
    );
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    for (const loser of answers.filter((a) => a.status !== 200)) expectError(loser, 409, 'ACTION_ALREADY_RESOLVED');

    const done = await waitForExecutionEnd(app.baseUrl, started.id);
    expect(done).toMatchObject({ status: 'completed', outputText: 'shipped' });
    const events = await replay(app.baseUrl, started.id);
    const responded = events.filter((e) => e.type === 'action.responded');
    expect(responded).toHaveLength(1);
    // The one stored answer is the winner's, everywhere it shows.
    expect(responded[0].data).toEqual({ actionId, response: winners[0].body.response });
    expect(await listActions(app.baseUrl, started.id)).toEqual([winners[0].body]);
    expect(countOf(events, 'run.completed')).toBe(1);
  });

  it('10 concurrent answers racing with different kinds of bodies still let exactly one win', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'action', kind: 'input', prompt: 'n?' }]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => respond(app.baseUrl, started.id, actionId, { value: i })));
    const winners = answers.filter((a) => a.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.error.code === 'ACTION_ALREADY_RESOLVED')).toHaveLength(9);
    await waitForExecutionEnd(app.baseUrl, started.id);
    const responded = (await replay(app.baseUrl, started.id)).filter((e) => e.type === 'action.responded');
    expect(responded.map((e) => e.data.response)).toEqual([winners[0].body.response]);
  });

  // Several rounds, since which request lands first differs from round to round.
  it.each([1, 2, 3, 4, 5])('a burst of cancels, answers and GETs on a waiting execution stays consistent (round %i)', async (round) => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'action', kind: 'approval', prompt: 'proceed?' },
      { type: 'text', text: 'after approval' },
    ]);
    const id = started.id as string;
    const [actionId] = (await waitForAction(app.baseUrl, id)).pendingActionIds;

    type Kind = 'cancel' | 'answer' | 'get';
    const plan: Kind[] = [];
    for (let i = 0; i < 24; i++) plan.push((['answer', 'get', 'cancel'] as const)[(i + round) % 3]);
    const results: { kind: Kind; res: JsonResponse }[] = await Promise.all(
      plan.map(async (kind, i) => {
        if (kind === 'cancel') return { kind, res: await cancel(app.baseUrl, id, { reason: `cancel ${i}` }) };
        if (kind === 'answer') return { kind, res: await respond(app.baseUrl, id, actionId, { decision: 'approve', comment: `c${i}` }) };
        return { kind, res: await api(app.baseUrl, 'GET', `/v1/executions/${id}`) };
      }),
    );

    const final = await waitForExecutionEnd(app.baseUrl, id);
    const events = await replay(app.baseUrl, id);
    expect(events.filter((e) => TERMINAL.includes(e.type))).toHaveLength(1);
    expect(TERMINAL).toContain(events[events.length - 1].type);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));

    const [action] = await listActions(app.baseUrl, id);
    const answered = results.filter((r) => r.kind === 'answer' && r.res.status === 200);
    expect(answered.length).toBeLessThanOrEqual(1);
    expect(countOf(events, 'action.responded')).toBe(answered.length);
    if (answered.length === 1) {
      // An accepted answer is never lost, whatever else happened to the execution.
      expect(action).toEqual(answered[0].res.body);
      expect(action.status).toBe('resolved');
    } else {
      expect(action).toMatchObject({ status: 'cancelled', response: null });
    }
    for (const { res } of results.filter((r) => r.kind === 'answer' && r.res.status !== 200)) {
      expect(res.status).toBe(409);
      expect(['ACTION_ALREADY_RESOLVED', 'INVALID_STATE']).toContain(res.body.error.code);
      // INVALID_STATE only once the action was cancelled, i.e. no answer was accepted.
      if (res.body.error.code === 'INVALID_STATE') expect(answered).toHaveLength(0);
    }

    const cancels = results.filter((r) => r.kind === 'cancel');
    if (final.status === 'cancelled') {
      // Every accepted cancel answers the same terminal state, which is the final one.
      for (const { res } of cancels) {
        if (res.status === 200) expect(res.body).toEqual(final);
        else expectError(res, 409, 'INVALID_STATE');
      }
      expect(cancels.some((c) => c.res.status === 200)).toBe(true);
      expect(final.cancellation).toEqual({ reason: expect.stringMatching(/^cancel \d+$/), providerCleanupError: null });
    } else {
      // The run completed before any cancel was accepted: they all answer as for an ended run.
      expect(final.status).toBe('completed');
      expect(answered).toHaveLength(1);
      for (const { res } of cancels) expectError(res, 409, 'INVALID_STATE');
    }
    for (const { res } of results.filter((r) => r.kind === 'get')) {
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(id);
    }
    expect(final.pendingActionIds).toEqual([]);
  });
});
