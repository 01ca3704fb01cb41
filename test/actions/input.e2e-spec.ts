import { startExecution, useApp } from '../support/app-harness';
import { countOf, expectError, listActions, replay, respond, startScript, waitForAction, waitForStatus } from '../support/execution-helpers';

const SCHEMA = {
  type: 'object',
  properties: { branch: { type: 'string', minLength: 1 }, retries: { type: 'integer', minimum: 0 } },
  required: ['branch'],
  additionalProperties: false,
};

describe('input actions (docs/api.md#actions)', () => {
  const app = useApp({ conversation: true });

  it('exposes its inputSchema, rejects values that fail it with 400, accepts one that passes', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'action', kind: 'input', prompt: 'Which branch?', inputSchema: SCHEMA },
      { type: 'text', text: 'done' },
    ]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    const [listed] = await listActions(app.baseUrl, started.id);
    expect(listed).toMatchObject({ kind: 'input', prompt: 'Which branch?', inputSchema: SCHEMA, status: 'pending' });
    const required = (await replay(app.baseUrl, started.id)).find((e) => e.type === 'action.required');
    expect(required.data.inputSchema).toEqual(SCHEMA);

    for (const value of [{}, { branch: '' }, { branch: 'main', retries: -1 }, { branch: 'main', extra: true }, 'main', null]) {
      expectError(await respond(app.baseUrl, started.id, actionId, { value }), 400, 'VALIDATION_ERROR');
    }
    expect(countOf(await replay(app.baseUrl, started.id), 'action.responded')).toBe(0);

    const value = { retries: 2, branch: 'main' };
    const res = await respond(app.baseUrl, started.id, actionId, { value });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: actionId, status: 'resolved', response: { value } });
    // The response is the body as sent: the value's own key order survives.
    expect(Object.keys(res.body.response.value)).toEqual(['retries', 'branch']);
    const done = await waitForStatus(app.baseUrl, started.id, 'completed');
    expect(done.outputText).toBe('done');
    const responded = (await replay(app.baseUrl, started.id)).filter((e) => e.type === 'action.responded');
    expect(responded).toHaveLength(1);
    expect(responded[0].data).toEqual({ actionId, response: { value } });
  });

  it('input bodies of the wrong shape are 400: missing value, extra field, approval body', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'action', kind: 'input', prompt: 'Anything?' }]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    for (const body of [{}, { value: 1, comment: 'x' }, { decision: 'approve' }]) {
      expectError(await respond(app.baseUrl, started.id, actionId, body), 400, 'VALIDATION_ERROR');
    }
    expect((await listActions(app.baseUrl, started.id))[0].status).toBe('pending');
  });

  it.each([
    ['a string', 'free text'],
    ['a number', 3.5],
    ['an array', [1, 'two', { three: 3 }]],
    ['an object', { nested: { deep: [true] } }],
    ['false', false],
    ['null', null],
  ])('without a schema any JSON value is accepted: %s', async (_label, value) => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'action', kind: 'input', prompt: 'Anything?' }]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    const res = await respond(app.baseUrl, started.id, actionId, { value });
    expect(res.status).toBe(200);
    expect(res.body.inputSchema).toBeNull();
    expect(res.body.response).toEqual({ value });
    await waitForStatus(app.baseUrl, started.id, 'completed');
    expect((await listActions(app.baseUrl, started.id))[0].response).toEqual({ value });
  });

  it('an inputSchema that is not JSON Schema 2020-12, or on an approval step, is 400 at the request', async () => {
    const bad = [
      { type: 'action', kind: 'input', prompt: 'x', inputSchema: { type: 'no-such-type' } },
      { type: 'action', kind: 'input', prompt: 'x', inputSchema: { minLength: -1 } },
      { type: 'action', kind: 'input', prompt: 'x', inputSchema: 'string' },
      { type: 'action', kind: 'approval', prompt: 'x', inputSchema: { type: 'string' } },
    ];
    for (const step of bad) {
      const res = await startExecution(app.baseUrl, { conversationId: app.conversationId, config: { script: [step] } });
      expectError(res, 400, 'VALIDATION_ERROR');
    }
  });
});
