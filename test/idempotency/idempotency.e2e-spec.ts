import { createConversation, useApp } from '../support/app-harness';
import { executionsOf, expectError, postExecution, replay, respond, waitForAction, waitForExecutionEnd } from '../support/execution-helpers';

let keyCounter = 0;
const freshKey = () => `key-${Date.now()}-${keyCounter++}`;

describe('idempotency keys (docs/api.md#idempotency)', () => {
  const app = useApp({ conversation: true });

  it('an equivalent request (keys reordered, capabilities reordered or repeated) answers 200 replayed with the current state', async () => {
    const key = freshKey();
    const original = {
      conversationId: app.conversationId,
      provider: 'scripted',
      input: { text: 'hello' },
      requiredCapabilities: ['output.text.stream', 'artifacts'],
      config: { script: [{ type: 'text', text: 'hi' }], cleanup: 'ok' },
      idempotencyKey: key,
    };
    const created = await postExecution(app.baseUrl, original);
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    expect(created.body).toMatchObject({ status: 'queued', lastSequence: 1, idempotencyKey: key });
    const done = await waitForExecutionEnd(app.baseUrl, created.body.id);
    expect(done.status).toBe('completed');

    const equivalent = {
      idempotencyKey: key,
      config: { cleanup: 'ok', script: [{ text: 'hi', type: 'text' }] },
      requiredCapabilities: ['artifacts', 'output.text.stream', 'artifacts'],
      input: { text: 'hello' },
      provider: 'scripted',
      conversationId: app.conversationId,
    };
    const replayed = await postExecution(app.baseUrl, equivalent);
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    // The original execution as it is now, not as it was at 201.
    expect(replayed.body).toEqual(done);
    expect(replayed.body.requiredCapabilities).toEqual(['output.text.stream', 'artifacts']);
    expect(await executionsOf(app.baseUrl, app.conversationId)).toEqual(expect.arrayContaining([expect.objectContaining({ id: created.body.id })]));
    expect((await replay(app.baseUrl, created.body.id)).filter((e) => e.type === 'run.queued')).toHaveLength(1);
  });

  it('a replay while the original waits on an action shows that state; null optional fields equal absent ones', async () => {
    const conversation = await createConversation(app.baseUrl);
    const key = freshKey();
    const body = {
      conversationId: conversation,
      provider: 'scripted',
      input: { text: 'x' },
      config: { script: [{ type: 'action', kind: 'approval', prompt: 'go?' }] },
      idempotencyKey: key,
    };
    const created = await postExecution(app.baseUrl, body);
    expect(created.status).toBe(201);
    const waiting = await waitForAction(app.baseUrl, created.body.id);

    const replayed = await postExecution(app.baseUrl, { ...body, requiredCapabilities: [] });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(waiting);
    expect(replayed.body.status).toBe('requires_action');

    const withNull = await postExecution(app.baseUrl, { ...body, requiredCapabilities: null });
    expect(withNull.status).toBe(200);
    expect(withNull.body.id).toBe(created.body.id);

    expect((await respond(app.baseUrl, created.body.id, waiting.pendingActionIds[0], { decision: 'approve' })).status).toBe(200);
    await waitForExecutionEnd(app.baseUrl, created.body.id);
    expect(await executionsOf(app.baseUrl, conversation)).toHaveLength(1);
  });

  it('the same key with a different request is 409 IDEMPOTENCY_CONFLICT and creates nothing', async () => {
    const conversation = await createConversation(app.baseUrl);
    const other = await createConversation(app.baseUrl);
    const key = freshKey();
    const body = { conversationId: conversation, provider: 'scripted', input: { text: 'a' }, config: {}, idempotencyKey: key };
    expect((await postExecution(app.baseUrl, body)).status).toBe(201);

    const different = [
      { ...body, input: { text: 'b' } },
      { ...body, config: { cleanup: 'fail' } },
      { ...body, requiredCapabilities: ['output.text.stream'] },
      { ...body, conversationId: other },
    ];
    for (const request of different) expectError(await postExecution(app.baseUrl, request), 409, 'IDEMPOTENCY_CONFLICT');
    expect(await executionsOf(app.baseUrl, conversation)).toHaveLength(1);
    expect(await executionsOf(app.baseUrl, other)).toHaveLength(0);
  });

  it('a request failing any check does not use up its key: a later valid request with it gets 201', async () => {
    const conversation = await createConversation(app.baseUrl);
    const key = freshKey();
    const valid = { conversationId: conversation, provider: 'scripted', input: { text: 'ok' }, idempotencyKey: key };

    expectError(await postExecution(app.baseUrl, { ...valid, input: { text: '' } }), 400, 'VALIDATION_ERROR');
    expectError(await postExecution(app.baseUrl, { ...valid, conversationId: 'no-such-conversation' }), 404, 'NOT_FOUND');
    expectError(await postExecution(app.baseUrl, { ...valid, provider: 'no-such-provider' }), 404, 'PROVIDER_NOT_FOUND');
    expectError(await postExecution(app.baseUrl, { ...valid, config: { script: 'nope' } }), 400, 'VALIDATION_ERROR');
    expectError(await postExecution(app.baseUrl, { ...valid, requiredCapabilities: ['input.image'] }), 422, 'CAPABILITY_UNSUPPORTED', {
      capabilities: [{ name: 'input.image', level: 'unsupported' }],
    });
    expect(await executionsOf(app.baseUrl, conversation)).toHaveLength(0);

    // A valid request that differs from every failed one, with the same key: the key is still free.
    const created = await postExecution(app.baseUrl, { ...valid, input: { text: 'finally' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'queued', lastSequence: 1, idempotencyKey: key, input: { text: 'finally' } });
    // ...and now it is taken by that request.
    expectError(await postExecution(app.baseUrl, valid), 409, 'IDEMPOTENCY_CONFLICT');
  });

  it('idempotencyKey is 1..255 printable ASCII characters', async () => {
    for (const idempotencyKey of ['', 'k'.repeat(256), 'tab\tkey', 'clé', 42]) {
      expectError(
        await postExecution(app.baseUrl, { conversationId: app.conversationId, provider: 'scripted', input: { text: 'x' }, idempotencyKey }),
        400,
        'VALIDATION_ERROR',
      );
    }
    const longest = ` ~${'k'.repeat(253)}`;
    const res = await postExecution(app.baseUrl, { conversationId: app.conversationId, provider: 'scripted', input: { text: 'x' }, idempotencyKey: longest });
    expect(res.status).toBe(201);
    expect(res.body.idempotencyKey).toBe(longest);
  });

  it('without a key, identical requests create separate executions', async () => {
    const conversation = await createConversation(app.baseUrl);
    const body = { conversationId: conversation, provider: 'scripted', input: { text: 'same' } };
    const [a, b] = [await postExecution(app.baseUrl, body), await postExecution(app.baseUrl, { ...body, idempotencyKey: null })];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.idempotencyKey).toBeNull();
  });
});
