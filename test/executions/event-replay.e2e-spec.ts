import { api, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { expectError, ISO_MS } from '../support/error-envelope';

/** docs/api.md#events: the event envelope and JSON replay with `after` and `limit`. */
describe('event replay (docs/api.md#events)', () => {
  const app = useApp({ conversation: true });
  let id: string;
  let all: any[];
  const replay = (query = '', executionId = id) => api(app.baseUrl, 'GET', `/v1/executions/${executionId}/events${query}`);

  beforeAll(async () => {
    id = (await startExecution(app.baseUrl, { conversationId: app.conversationId, input: { text: 'one two three four five six' } })).body.id;
    await waitForExecution(app.baseUrl, id);
    all = (await replay()).body.events;
  });

  it('answers {events, lastSequence, terminal} with every event of a finished execution', async () => {
    const res = await replay();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(Object.keys(res.body)).toEqual(['events', 'lastSequence', 'terminal']);
    expect(res.body.lastSequence).toBe(10);
    expect(res.body.terminal).toBe(true);
    expect(all.map((e) => e.type)).toEqual(['run.queued', 'run.started', ...Array(6).fill('output.text.delta'), 'output.text.done', 'run.completed']);
  });

  it('every event has exactly the envelope {executionId, sequence, type, occurredAt, data}, in that key order', () => {
    for (const event of all) {
      expect(Object.keys(event)).toEqual(['executionId', 'sequence', 'type', 'occurredAt', 'data']);
      expect(event.executionId).toBe(id);
      expect(event.occurredAt).toMatch(ISO_MS);
    }
  });

  it('sequences run 1.. contiguously, timestamps never go back, and one terminal event ends the stream', () => {
    expect(all.map((e) => e.sequence)).toEqual(all.map((_, i) => i + 1));
    for (let i = 1; i < all.length; i++) expect(all[i].occurredAt >= all[i - 1].occurredAt).toBe(true);
    const terminals = all.filter((e) => ['run.completed', 'run.failed', 'run.cancelled'].includes(e.type));
    expect(terminals).toEqual([all[all.length - 1]]);
  });

  it('the same event always has the same sequence and bytes', async () => {
    const again = await replay();
    expect(again.body.events).toEqual(all);
    const page = await replay('?after=4&limit=3');
    expect(page.body.events).toEqual(all.slice(4, 7));
    expect(JSON.stringify(page.body.events)).toBe(JSON.stringify(all.slice(4, 7)));
  });

  it.each([
    ['?after=0', 0, undefined],
    ['?after=2', 2, undefined],
    ['?after=9', 9, undefined],
    ['?limit=1', 0, 1],
    ['?limit=4', 0, 4],
    ['?after=3&limit=2', 3, 2],
    ['?limit=2&after=8', 8, 2],
    ['?after=8&limit=1000', 8, 1000],
  ])('%s pages from the cursor', async (query, after, limit) => {
    const res = await replay(query);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      events: all.slice(after, limit === undefined ? undefined : after + limit),
      lastSequence: 10,
      terminal: true,
    });
  });

  it.each(['?after=10', '?after=11', '?after=999999', '?after=5000&limit=10'])('%s (at or beyond the last sequence) returns no events', async (query) => {
    const res = await replay(query);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ events: [], lastSequence: 10, terminal: true });
  });

  it.each([
    '?after=-1',
    '?after=1.5',
    '?after=abc',
    '?after=1e2',
    '?after=+1',
    '?after=0x1',
    '?after=%201',
    '?limit=0',
    '?limit=1001',
    '?limit=-1',
    '?limit=1.5',
    '?limit=abc',
    '?limit=10000000000000000000',
  ])('a bad cursor or limit (%s) is 400 VALIDATION_ERROR', async (query) => {
    expectError(await replay(query), 400, 'VALIDATION_ERROR');
  });

  it('a bad query is 400 even for an unknown execution (shape before lookup)', async () => {
    expectError(await replay('?after=-1', 'unknown'), 400, 'VALIDATION_ERROR');
    expectError(await replay('?limit=0', 'unknown'), 400, 'VALIDATION_ERROR');
  });

  it('an unknown execution is 404 NOT_FOUND', async () => {
    expectError(await replay('', '0190f5d4-6b3e-7c3a-8f00-000000000000'), 404, 'NOT_FOUND');
    expectError(await replay('?after=1', app.conversationId), 404, 'NOT_FOUND');
  });

  it('a live execution is not terminal, and lastSequence is its head', async () => {
    const started = await startExecution(app.baseUrl, {
      conversationId: app.conversationId,
      config: {
        script: [
          { type: 'text', text: 'a' },
          { type: 'delay', ms: 30000 },
        ],
      },
    });
    await waitForExecution(app.baseUrl, started.body.id, (e) => e.lastSequence === 3);
    const res = await replay('', started.body.id);
    expect(res.body.terminal).toBe(false);
    expect(res.body.lastSequence).toBe(3);
    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['run.queued', 'run.started', 'output.text.delta']);
    const page = await replay('?after=1&limit=1', started.body.id);
    expect(page.body).toEqual({ events: [res.body.events[1]], lastSequence: 3, terminal: false });
    expect((await replay('?after=3', started.body.id)).body).toEqual({ events: [], lastSequence: 3, terminal: false });

    await api(app.baseUrl, 'POST', `/v1/executions/${started.body.id}:cancel`, {});
    const ended = await replay('?after=3', started.body.id);
    expect(ended.body.terminal).toBe(true);
    expect(ended.body.events.map((e: { type: string }) => e.type)).toEqual(['run.cancelled']);
  });

  it('event data has the documented shape per type', async () => {
    const byType = Object.fromEntries(all.map((e) => [e.type, e.data]));
    expect(byType['run.queued']).toEqual({
      conversationId: app.conversationId,
      provider: 'scripted',
      input: { text: 'one two three four five six' },
      requiredCapabilities: [],
      config: {},
      idempotencyKey: null,
    });
    expect(byType['run.started']).toEqual({ provider: 'scripted' });
    expect(byType['output.text.done']).toEqual({ text: 'one two three four five six' });
    expect(byType['run.completed']).toEqual({ usage: null });
    const deltas = all.filter((e) => e.type === 'output.text.delta').map((e) => e.data);
    for (const d of deltas) expect(Object.keys(d)).toEqual(['delta']);
    expect(deltas.map((d) => d.delta).join('')).toBe(byType['output.text.done'].text);
  });
});
