import { api, createConversation, readSse, startExecution, useApp, waitForExecution } from '../support/app-harness';

describe('smoke: an echo execution end to end', () => {
  const app = useApp();

  it('queues, streams and completes, with SSE bytes equal to the JSON replay', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const started = await startExecution(app.baseUrl, { conversationId });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ status: 'queued', lastSequence: 1 });
    const done = await waitForExecution(app.baseUrl, started.body.id);
    expect(done).toMatchObject({ status: 'completed', outputText: 'hello brave new world', lastSequence: 8 });
    const replay = await api(app.baseUrl, 'GET', `/v1/executions/${done.id}/events`);
    const sse = await readSse(app.baseUrl, `/v1/executions/${done.id}/events`);
    expect(sse.raw.startsWith('retry: 1000\n\n')).toBe(true);
    const dataLines = sse.messages.filter((m) => m.data).map((m) => m.data);
    expect(dataLines).toEqual(replay.body.events.map((e: unknown) => JSON.stringify(e)));
    expect(replay.text).toContain(dataLines.join(','));
  });
});
