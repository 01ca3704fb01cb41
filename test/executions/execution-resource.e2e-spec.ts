import { api, createConversation, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { expectError, ISO_MS, UUID_V7 } from '../support/error-envelope';

/** docs/api.md#executions: the Execution resource as POST answers it and GET reads it back. */
describe('the Execution resource (docs/api.md#executions)', () => {
  const app = useApp({ conversation: true });
  const get = (id: string) => api(app.baseUrl, 'GET', `/v1/executions/${id}`);
  const events = async (id: string) => (await api(app.baseUrl, 'GET', `/v1/executions/${id}/events`)).body.events;

  it('201 shows exactly the state right after run.queued, even though the run goes on', async () => {
    const res = await startExecution(app.baseUrl, { conversationId: app.conversationId, input: { text: 'hello brave new world' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID_V7),
      conversationId: app.conversationId,
      provider: 'scripted',
      status: 'queued',
      input: { text: 'hello brave new world' },
      requiredCapabilities: [],
      config: {},
      idempotencyKey: null,
      createdAt: expect.stringMatching(ISO_MS),
      startedAt: null,
      endedAt: null,
      outputText: null,
      error: null,
      cancellation: null,
      pendingActionIds: [],
      artifactCount: 0,
      lastSequence: 1,
    });
    expect(Object.keys(res.body)).toEqual([
      'id',
      'conversationId',
      'provider',
      'status',
      'input',
      'requiredCapabilities',
      'config',
      'idempotencyKey',
      'createdAt',
      'startedAt',
      'endedAt',
      'outputText',
      'error',
      'cancellation',
      'pendingActionIds',
      'artifactCount',
      'lastSequence',
    ]);
    const [queued] = await events(res.body.id);
    expect(queued).toMatchObject({ sequence: 1, type: 'run.queued', occurredAt: res.body.createdAt });
  });

  it('201 shows queued and lastSequence 1 even when the run finishes at once', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await startExecution(app.baseUrl, { conversationId: app.conversationId, config: { script: [] } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'queued', lastSequence: 1, startedAt: null, endedAt: null });
    }
  });

  it('GET reads the finished execution, and run.queued carries the normalized request', async () => {
    const started = await startExecution(app.baseUrl, {
      conversationId: app.conversationId,
      input: { text: 'hi there' },
      requiredCapabilities: ['tools', 'output.text.stream', 'tools', 'output.structured', 'output.text.stream'],
      config: { script: [{ type: 'text', text: 'ok' }], cleanup: 'ok' },
      idempotencyKey: 'resource-key-1',
    });
    expect(started.status).toBe(201);
    // Duplicates are dropped, order kept.
    expect(started.body.requiredCapabilities).toEqual(['tools', 'output.text.stream', 'output.structured']);
    const done = await waitForExecution(app.baseUrl, started.body.id);
    const res = await get(started.body.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...started.body,
      status: 'completed',
      startedAt: expect.stringMatching(ISO_MS),
      endedAt: expect.stringMatching(ISO_MS),
      outputText: 'ok',
      lastSequence: 5,
    });
    expect(done).toEqual(res.body);
    expect(res.body.startedAt >= res.body.createdAt).toBe(true);
    expect(res.body.endedAt >= res.body.startedAt).toBe(true);
    const [queued] = await events(started.body.id);
    expect(queued.data).toEqual({
      conversationId: app.conversationId,
      provider: 'scripted',
      input: { text: 'hi there' },
      requiredCapabilities: ['tools', 'output.text.stream', 'output.structured'],
      config: { script: [{ type: 'text', text: 'ok' }], cleanup: 'ok' },
      idempotencyKey: 'resource-key-1',
    });
    expect(Object.keys(queued.data)).toEqual(['conversationId', 'provider', 'input', 'requiredCapabilities', 'config', 'idempotencyKey']);
  });

  it('a failed run shows error {code, message} and no outputText', async () => {
    const started = await startExecution(app.baseUrl, {
      conversationId: app.conversationId,
      config: {
        script: [
          { type: 'text', text: 'partial' },
          { type: 'fail', message: 'it broke' },
        ],
      },
    });
    const done = await waitForExecution(app.baseUrl, started.body.id);
    expect(done).toMatchObject({
      status: 'failed',
      outputText: null,
      error: { code: 'PROVIDER_ERROR', message: 'it broke' },
      cancellation: null,
      endedAt: expect.stringMatching(ISO_MS),
    });
    expect(Object.keys(done.error)).toEqual(['code', 'message']);
  });

  it('a running execution shows running with startedAt and no endedAt', async () => {
    const started = await startExecution(app.baseUrl, {
      conversationId: app.conversationId,
      config: {
        script: [
          { type: 'text', text: 'a' },
          { type: 'delay', ms: 30000 },
        ],
      },
    });
    const running = await waitForExecution(app.baseUrl, started.body.id, (e) => e.lastSequence === 3);
    expect(running).toMatchObject({ status: 'running', startedAt: expect.stringMatching(ISO_MS), endedAt: null, outputText: null });
    const cancelled = await api(app.baseUrl, 'POST', `/v1/executions/${started.body.id}:cancel`, {});
    expect(cancelled.status).toBe(200);
    // Read-your-writes: the read right after the command never shows the state before it.
    const read = await get(started.body.id);
    expect(read.body.status).toBe('cancelled');
    expect(read.body.lastSequence).toBeGreaterThanOrEqual(cancelled.body.lastSequence);
  });

  it('read-your-writes: a GET right after the POST never shows less than the POST answered', async () => {
    const ids = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const res = await startExecution(app.baseUrl, { conversationId: app.conversationId });
        const read = await get(res.body.id);
        expect(read.status).toBe(200);
        expect(read.body.lastSequence).toBeGreaterThanOrEqual(1);
        expect(read.body.createdAt).toBe(res.body.createdAt);
        const replay = await api(app.baseUrl, 'GET', `/v1/executions/${res.body.id}/events`);
        expect(replay.body.lastSequence).toBeGreaterThanOrEqual(read.body.lastSequence);
        return res.body.id as string;
      }),
    );
    for (const id of ids) await waitForExecution(app.baseUrl, id);
  });

  it('the GET state agrees with the events at every point it is read', async () => {
    const started = await startExecution(app.baseUrl, { conversationId: app.conversationId, input: { text: 'a b c d e f g h' } });
    for (;;) {
      const read = (await get(started.body.id)).body;
      const replay = await api(app.baseUrl, 'GET', `/v1/executions/${started.body.id}/events`);
      expect(replay.body.lastSequence).toBeGreaterThanOrEqual(read.lastSequence);
      if (read.status === 'completed') break;
    }
  });

  it('a second execution in the same conversation runs on its own', async () => {
    const fresh = await createConversation(app.baseUrl);
    const first = await startExecution(app.baseUrl, { conversationId: fresh, input: { text: 'first turn' } });
    await waitForExecution(app.baseUrl, first.body.id);
    const second = await startExecution(app.baseUrl, { conversationId: fresh, input: { text: 'second turn' } });
    expect(second.status).toBe(201);
    const done = await waitForExecution(app.baseUrl, second.body.id);
    // The scripted provider echoes its own input; it has no way to show the history it received.
    expect(done).toMatchObject({ status: 'completed', outputText: 'second turn' });
    const conversation = await api(app.baseUrl, 'GET', `/v1/conversations/${fresh}`);
    expect(conversation.body.executions.map((e: { id: string }) => e.id)).toEqual([first.body.id, second.body.id]);
  });

  it('an unknown execution is 404 NOT_FOUND', async () => {
    expectError(await get('0190f5d4-6b3e-7c3a-8f00-000000000000'), 404, 'NOT_FOUND');
    expectError(await get(app.conversationId), 404, 'NOT_FOUND');
  });
});
