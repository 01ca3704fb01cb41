import { api, useApp } from '../support/app-harness';
import { cancel, countOf, expectError, ISO, listActions, replay, respond, startScript, waitForAction, waitForStatus } from '../support/execution-helpers';

/**
 * The order of checks in docs/api.md#actions: unknown execution 404 NOT_FOUND → unknown action 404 ACTION_NOT_FOUND →
 * answered already 409 ACTION_ALREADY_RESOLVED → cancelled action / ended execution 409
 * INVALID_STATE → body shape 400. Each request below fails two checks; the earlier one must win.
 */
describe('responding: the order of checks, and actions that die with their execution (docs/api.md#actions)', () => {
  const app = useApp({ conversation: true });

  const waitingOnApproval = async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'action', kind: 'approval', prompt: 'ok?' }]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    return { id: started.id as string, actionId: actionId as string };
  };

  it('unknown execution beats unknown action and a bad body: 404 NOT_FOUND', async () => {
    const { actionId } = await waitingOnApproval();
    expectError(await respond(app.baseUrl, 'no-such-execution', 'no-such-action', { decision: 'maybe' }), 404, 'NOT_FOUND');
    // Even an action id that exists elsewhere does not make an unknown execution known.
    expectError(await respond(app.baseUrl, 'no-such-execution', actionId, {}), 404, 'NOT_FOUND');
    expectError(await api(app.baseUrl, 'GET', '/v1/executions/no-such-execution/actions'), 404, 'NOT_FOUND');
  });

  it('unknown action beats a bad body: 404 ACTION_NOT_FOUND', async () => {
    const { id } = await waitingOnApproval();
    const other = await waitingOnApproval();
    expectError(await respond(app.baseUrl, id, 'no-such-action', { decision: 'maybe' }), 404, 'ACTION_NOT_FOUND');
    // An action of another execution is unknown on this one.
    expectError(await respond(app.baseUrl, id, other.actionId, { decision: 'approve' }), 404, 'ACTION_NOT_FOUND');
    expect(countOf(await replay(app.baseUrl, other.id), 'action.responded')).toBe(0);
  });

  it('answered already beats a bad body and an ended execution: 409 ACTION_ALREADY_RESOLVED', async () => {
    const { id, actionId } = await waitingOnApproval();
    expect((await respond(app.baseUrl, id, actionId, { decision: 'approve' })).status).toBe(200);
    // Still running or ended by now: either way "answered already" is checked first.
    expectError(await respond(app.baseUrl, id, actionId, { decision: 'maybe' }), 409, 'ACTION_ALREADY_RESOLVED');
    await waitForStatus(app.baseUrl, id, 'completed');
    expectError(await respond(app.baseUrl, id, actionId, { decision: 'approve' }), 409, 'ACTION_ALREADY_RESOLVED');
    expectError(await respond(app.baseUrl, id, actionId, { value: 1 }), 409, 'ACTION_ALREADY_RESOLVED');
    expect(countOf(await replay(app.baseUrl, id), 'action.responded')).toBe(1);
  });

  it('cancelling the execution cancels its unanswered actions, with resolvedAt, and empties pendingActionIds', async () => {
    const { id, actionId } = await waitingOnApproval();
    const cancelled = await cancel(app.baseUrl, id, { reason: 'user left' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', pendingActionIds: [] });

    const events = await replay(app.baseUrl, id);
    const terminal = events[events.length - 1];
    expect(terminal.type).toBe('run.cancelled');
    expect(countOf(events, 'action.responded')).toBe(0);
    expect(await listActions(app.baseUrl, id)).toEqual([
      {
        id: actionId,
        executionId: id,
        kind: 'approval',
        prompt: 'ok?',
        inputSchema: null,
        tool: null,
        status: 'cancelled',
        response: null,
        createdAt: ISO,
        resolvedAt: terminal.occurredAt,
      },
    ]);
  });

  it('cancelled action beats a bad body: 409 INVALID_STATE; a valid body gets the same', async () => {
    const { id, actionId } = await waitingOnApproval();
    expect((await cancel(app.baseUrl, id)).status).toBe(200);
    expectError(await respond(app.baseUrl, id, actionId, { decision: 'maybe' }), 409, 'INVALID_STATE');
    expectError(await respond(app.baseUrl, id, actionId, { decision: 'approve' }), 409, 'INVALID_STATE');
    // ...but an unknown action on the ended execution is still ACTION_NOT_FOUND.
    expectError(await respond(app.baseUrl, id, 'no-such-action', { decision: 'approve' }), 404, 'ACTION_NOT_FOUND');
    const events = await replay(app.baseUrl, id);
    expect(events[events.length - 1].type).toBe('run.cancelled');
    expect(countOf(events, 'action.responded')).toBe(0);
  });

  it('a resolved action stays resolved and an unanswered second one is cancelled when the run ends', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'action', kind: 'approval', prompt: 'one?' },
      { type: 'action', kind: 'input', prompt: 'two?' },
    ]);
    const [first] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    expect((await respond(app.baseUrl, started.id, first, { decision: 'approve', comment: 'go' })).status).toBe(200);
    const waiting = await waitForAction(app.baseUrl, started.id);
    const second = waiting.pendingActionIds[0];
    expect(second).not.toBe(first);

    expect((await cancel(app.baseUrl, started.id)).body.status).toBe('cancelled');
    const actions = await listActions(app.baseUrl, started.id);
    expect(actions.map((a) => [a.id, a.status, a.response])).toEqual([
      [first, 'resolved', { decision: 'approve', comment: 'go' }],
      [second, 'cancelled', null],
    ]);
    expect(actions[1].resolvedAt).toEqual(ISO);
    expectError(await respond(app.baseUrl, started.id, first, { decision: 'approve' }), 409, 'ACTION_ALREADY_RESOLVED');
    expectError(await respond(app.baseUrl, started.id, second, { value: 1 }), 409, 'INVALID_STATE');
  });

  it('a denied run: its answered action is resolved, later answers are 409 ACTION_ALREADY_RESOLVED', async () => {
    const { id, actionId } = await waitingOnApproval();
    expect((await respond(app.baseUrl, id, actionId, { decision: 'deny' })).status).toBe(200);
    const failed = await waitForStatus(app.baseUrl, id, 'failed');
    expect(failed.pendingActionIds).toEqual([]);
    expectError(await respond(app.baseUrl, id, actionId, { decision: 'approve' }), 409, 'ACTION_ALREADY_RESOLVED');
  });
});
