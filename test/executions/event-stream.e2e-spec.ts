import { api, createConversation, readSse, SseMessage, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/** docs/api.md#stream-the-same-url-with-accept-textevent-stream: the SSE form of the events URL. */
describe('event stream (docs/api.md#events)', () => {
  const app = useApp({ conversation: true });
  const eventsPath = (id: string, query = '') => `/v1/executions/${id}/events${query}`;
  const sseMessage = (e: { sequence: number; type: string }) => `id: ${e.sequence}\nevent: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`;
  const dataOf = (messages: SseMessage[]) => messages.filter((m) => m.data !== undefined);
  /** A run that stays live for a while: text, a pause, more text. */
  const slowScript = (pauseMs: number) => ({
    script: [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
      { type: 'delay', ms: pauseMs },
      { type: 'text', text: 'c' },
      { type: 'delay', ms: pauseMs },
      { type: 'text', text: 'd' },
    ],
  });

  describe('a finished execution', () => {
    let id: string;
    let replay: { text: string; body: any };
    beforeAll(async () => {
      id = (await startExecution(app.baseUrl, { conversationId: app.conversationId, input: { text: 'hello brave new world' } })).body.id;
      await waitForExecution(app.baseUrl, id);
      replay = await api(app.baseUrl, 'GET', eventsPath(id));
    });

    it('writes retry: 1000 first, then one id/event/data message per event, byte-identical to the replay, and closes', async () => {
      const sse = await readSse(app.baseUrl, eventsPath(id));
      expect(sse.status).toBe(200);
      expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(sse.raw).toBe(`retry: 1000\n\n${replay.body.events.map(sseMessage).join('')}`);
      const data = dataOf(sse.messages).map((m) => m.data);
      expect(replay.text).toBe(`{"events":[${data.join(',')}],"lastSequence":8,"terminal":true}`);
    });

    it('starts after the cursor given by after', async () => {
      const sse = await readSse(app.baseUrl, eventsPath(id, '?after=5'));
      expect(sse.raw).toBe(`retry: 1000\n\n${replay.body.events.slice(5).map(sseMessage).join('')}`);
    });

    it('Last-Event-ID takes precedence over after', async () => {
      const sse = await readSse(app.baseUrl, eventsPath(id, '?after=1'), { 'last-event-id': '6' });
      expect(dataOf(sse.messages).map((m) => m.id)).toEqual(['7', '8']);
      const lower = await readSse(app.baseUrl, eventsPath(id, '?after=7'), { 'last-event-id': '2' });
      expect(dataOf(lower.messages).map((m) => m.id)).toEqual(['3', '4', '5', '6', '7', '8']);
    });

    it('limit does not apply to streams', async () => {
      const sse = await readSse(app.baseUrl, eventsPath(id, '?limit=2'));
      expect(dataOf(sse.messages)).toHaveLength(8);
    });

    it.each([
      ['after at the last sequence', '?after=8', {}],
      ['after beyond it', '?after=50', {}],
      ['Last-Event-ID at the last sequence', '', { 'last-event-id': '8' }],
      ['Last-Event-ID beyond it, whatever after says', '?after=0', { 'last-event-id': '9' }],
    ])('answers 204 with no body when nothing is left: %s', async (_, query, headers) => {
      const res = await fetch(`${app.baseUrl}${eventsPath(id, query)}`, { headers: { accept: 'text/event-stream', ...headers } });
      expect(res.status).toBe(204);
      expect(await res.text()).toBe('');
    });

    it.each([
      'application/json, text/event-stream',
      'text/event-stream;q=0.5, application/json',
      'Text/Event-Stream',
      'text/html,text/event-stream ; charset=utf-8',
    ])('Accept %p counts as SSE', async (accept) => {
      const sse = await readSse(app.baseUrl, eventsPath(id), { accept });
      expect(sse.status).toBe(200);
      expect(sse.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(dataOf(sse.messages)).toHaveLength(8);
    });

    it.each(['application/json', '*/*', 'text/plain'])('Accept %p answers the JSON replay', async (accept) => {
      const res = await api(app.baseUrl, 'GET', eventsPath(id), undefined, { accept });
      expect(res.status).toBe(200);
      expect(res.text).toBe(replay.text);
    });

    it.each(['abc', '-1', '1.5', '1e1', '0x2', '+3'])('a bad Last-Event-ID (%p) is a 400 JSON error', async (value) => {
      const res = await api(app.baseUrl, 'GET', eventsPath(id), undefined, { accept: 'text/event-stream', 'last-event-id': value });
      expectError(res, 400, 'VALIDATION_ERROR');
    });

    it('a bad after on a stream is a 400 JSON error', async () => {
      for (const q of ['?after=-1', '?after=x', '?after=']) {
        expectError(await api(app.baseUrl, 'GET', eventsPath(id, q), undefined, { accept: 'text/event-stream' }), 400, 'VALIDATION_ERROR');
      }
    });

    it('an unknown execution is a 404 JSON error; a bad cursor is checked first', async () => {
      const path = eventsPath('0190f5d4-6b3e-7c3a-8f00-000000000000');
      expectError(await api(app.baseUrl, 'GET', path, undefined, { accept: 'text/event-stream' }), 404, 'NOT_FOUND');
      const both = await api(app.baseUrl, 'GET', path, undefined, { accept: 'text/event-stream', 'last-event-id': 'x' });
      expectError(both, 400, 'VALIDATION_ERROR');
    });
  });

  describe('a live execution', () => {
    it('writes the backlog, then live events through the terminal event, then closes', async () => {
      const id = (await startExecution(app.baseUrl, { conversationId: app.conversationId, config: slowScript(300) })).body.id;
      const before = await waitForExecution(app.baseUrl, id, (e) => e.lastSequence >= 4);
      expect(before.status).toBe('running');
      const sse = await readSse(app.baseUrl, eventsPath(id));
      const replay = await api(app.baseUrl, 'GET', eventsPath(id));
      expect(replay.body.terminal).toBe(true);
      expect(sse.raw).toBe(`retry: 1000\n\n${replay.body.events.map(sseMessage).join('')}`);
      expect(dataOf(sse.messages).map((m) => m.event)).toEqual([
        'run.queued',
        'run.started',
        'output.text.delta',
        'output.text.delta',
        'output.text.delta',
        'output.text.delta',
        'output.text.done',
        'run.completed',
      ]);
    });

    it('resuming from Last-Event-ID after a disconnect, deduplicated, equals the JSON replay exactly', async () => {
      const id = (await startExecution(app.baseUrl, { conversationId: app.conversationId, config: slowScript(200) })).body.id;
      const first = await readSse(app.baseUrl, eventsPath(id), {}, (m) => dataOf(m).length >= 3);
      const received = dataOf(first.messages);
      const lastId = received[received.length - 1].id!;
      const second = await readSse(app.baseUrl, eventsPath(id, '?after=0'), { 'last-event-id': lastId });
      const resumed = dataOf(second.messages);
      expect(Number(resumed[0].id)).toBe(Number(lastId) + 1);
      const replay = await api(app.baseUrl, 'GET', eventsPath(id));
      expect([...received, ...resumed].map((m) => m.data)).toEqual(replay.body.events.map((e: unknown) => JSON.stringify(e)));
      expect(resumed[resumed.length - 1].event).toBe('run.completed');
    });

    it('a cursor past the head still closes once the execution ends', async () => {
      const id = (await startExecution(app.baseUrl, { conversationId: app.conversationId, config: slowScript(100) })).body.id;
      const res = await fetch(`${app.baseUrl}${eventsPath(id)}`, {
        headers: { accept: 'text/event-stream', 'last-event-id': '1000' },
        signal: AbortSignal.timeout(5000),
      });
      expect(res.status).toBe(200);
      // Resolves only when the server closes the response (the timeout would reject instead).
      expect(await res.text()).toBe('retry: 1000\n\n');
      expect((await api(app.baseUrl, 'GET', `/v1/executions/${id}`)).body.status).toBe('completed');
    });
  });

  describe('keep-alive', () => {
    const quick = useApp({ sseKeepAliveMs: 50 });

    it('an idle stream gets `: keep-alive` comments and still ends with the terminal event', async () => {
      const conversation = await createConversation(quick.baseUrl);
      const id = (
        await startExecution(quick.baseUrl, {
          conversationId: conversation,
          config: {
            script: [
              { type: 'delay', ms: 400 },
              { type: 'text', text: 'late' },
            ],
          },
        })
      ).body.id;
      const sse = await readSse(quick.baseUrl, eventsPath(id));
      expect(sse.raw.startsWith('retry: 1000\n\n')).toBe(true);
      const comments = sse.messages.filter((m) => m.comment !== undefined);
      expect(comments.length).toBeGreaterThan(0);
      for (const c of comments) expect(c).toEqual({ comment: 'keep-alive' });
      expect(sse.raw).toContain('\n\n: keep-alive\n\n');
      const data = dataOf(sse.messages);
      expect(data.map((m) => m.event)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'output.text.done', 'run.completed']);
      const replay = await api(quick.baseUrl, 'GET', eventsPath(id));
      expect(data.map((m) => m.data)).toEqual(replay.body.events.map((e: unknown) => JSON.stringify(e)));
    });
  });
});
