import { api, readSse, startExecution, useApp, waitForExecution } from '../support/app-harness';

/** A history of tens of thousands of events: every read path sees all of it, in order, in pages. */
describe('an execution of 20,000 events', () => {
  const app = useApp({ conversation: true });
  const count = 20_000;
  let id: string;

  beforeAll(async () => {
    // The echo of 19,996 words (a script that long is over MAX_CONFIG_BYTES).
    const text = Array.from({ length: count - 4 }, (_, i) => `${i}`).join(' ');
    const res = await startExecution(app.baseUrl, { conversationId: app.conversationId, input: { text } });
    expect(res.status).toBe(201);
    id = res.body.id;
    await waitForExecution(app.baseUrl, id, undefined, 60_000);
  }, 90_000);

  it('GET by id shows the whole run', async () => {
    const res = await api(app.baseUrl, 'GET', `/v1/executions/${id}`);
    expect(res.body).toMatchObject({ status: 'completed', lastSequence: count });
    expect(res.body.outputText.length).toBeGreaterThan(count * 2);
  });

  it('replay in one read and in 1,000-event pages gives the same events in sequence order', async () => {
    const whole = (await api(app.baseUrl, 'GET', `/v1/executions/${id}/events`)).body;
    expect(whole.events).toHaveLength(count);
    expect(whole).toMatchObject({ lastSequence: count, terminal: true });
    const paged: any[] = [];
    for (let after = 0; after < count; after += 1000) {
      const page = (await api(app.baseUrl, 'GET', `/v1/executions/${id}/events?after=${after}&limit=1000`)).body;
      expect(page).toMatchObject({ lastSequence: count, terminal: true });
      paged.push(...page.events);
    }
    expect(paged).toEqual(whole.events);
    expect(paged.map((e) => e.sequence)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  });

  it('the SSE backlog holds every event once, then the stream closes', async () => {
    const sse = await readSse(app.baseUrl, `/v1/executions/${id}/events`);
    const ids = sse.messages.filter((m) => m.id).map((m) => Number(m.id));
    expect(ids).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    const resumed = await readSse(app.baseUrl, `/v1/executions/${id}/events`, { 'last-event-id': String(count - 10) });
    expect(resumed.messages.filter((m) => m.id).map((m) => Number(m.id))).toEqual(Array.from({ length: 10 }, (_, i) => count - 9 + i));
  });

  it('the audit feed pages through it', async () => {
    let after = 0;
    let seen = 0;
    for (;;) {
      const page = (await api(app.baseUrl, 'GET', `/v1/events?after=${after}&limit=1000`)).body;
      seen += page.events.filter((e: any) => e.executionId === id).length;
      if (page.lastPosition === after) break;
      after = page.lastPosition;
    }
    expect(seen).toBe(count);
  });
});
