import { api, readSse, useApp } from '../support/app-harness';
import { expectError } from '../support/execution-helpers';

/** `GET /v1/events`, the tenant's whole history in global order, JSON and SSE. */
describe('the audit feed', () => {
  const app = useApp({ env: { API_KEYS: 'acme:key-acme-0123456789abcdef,globex:key-globex-0123456789abcdef' } });
  const as = (tenant: 'acme' | 'globex') => ({ authorization: `Bearer key-${tenant}-0123456789abcdef` });
  const get = (tenant: 'acme' | 'globex', path: string) => api(app.baseUrl, 'GET', path, undefined, as(tenant));
  const executions: string[] = [];
  let conversationId: string;

  beforeAll(async () => {
    conversationId = (await api(app.baseUrl, 'POST', '/v1/conversations', { title: 'audited' }, as('acme'))).body.id;
    for (const idempotencyKey of ['k1', 'k2', null]) {
      const res = await api(
        app.baseUrl,
        'POST',
        '/v1/executions',
        { conversationId, provider: 'scripted', input: { text: `run ${idempotencyKey} of acme` }, idempotencyKey },
        as('acme'),
      );
      executions.push(res.body.id);
    }
    const other = (await api(app.baseUrl, 'POST', '/v1/conversations', {}, as('globex'))).body.id;
    await api(app.baseUrl, 'POST', '/v1/executions', { conversationId: other, provider: 'scripted', input: { text: 'globex' } }, as('globex'));
    for (const id of executions) {
      for (let tries = 0; (await get('acme', `/v1/executions/${id}`)).body.status !== 'completed'; tries++) {
        if (tries > 500) throw new Error(`execution ${id} did not complete`);
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  });

  async function wholeFeed(tenant: 'acme' | 'globex', limit: number): Promise<{ events: any[]; lastPositions: number[] }> {
    const events: any[] = [];
    const lastPositions: number[] = [];
    let after = 0;
    for (;;) {
      const res = await get(tenant, `/v1/events?after=${after}&limit=${limit}`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['events', 'lastPosition']);
      events.push(...res.body.events);
      lastPositions.push(res.body.lastPosition);
      if (res.body.lastPosition === after) return { events, lastPositions };
      after = res.body.lastPosition;
    }
  }

  it('holds every event the tenant owns, in global order, conversation events with conversationId, no idempotency claims', async () => {
    const { events } = await wholeFeed('acme', 1000);
    const positions = events.map((e) => e.position);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(new Set(positions).size).toBe(positions.length);
    expect(events[0]).toEqual({
      conversationId,
      sequence: 1,
      type: 'conversation.created',
      occurredAt: expect.any(String),
      data: { title: 'audited', metadata: {} },
      position: expect.any(Number),
    });
    // Each execution's events appear exactly as its replay shows them, plus the position.
    for (const id of executions) {
      const ofExecution = events.filter((e) => e.executionId === id).map(({ position, ...envelope }) => envelope);
      expect(ofExecution).toEqual((await get('acme', `/v1/executions/${id}/events`)).body.events);
    }
    expect(events.some((e) => e.type.startsWith('idempotency'))).toBe(false);
  });

  it('pages give the same events as one read, and lastPosition moves on even past events of other tenants', async () => {
    const whole = await wholeFeed('acme', 1000);
    const paged = await wholeFeed('acme', 7);
    expect(paged.events).toEqual(whole.events);
    const globex = await wholeFeed('globex', 1000);
    expect(globex.events.every((e) => !executions.includes(e.executionId))).toBe(true);
    // A page after the tenant's last event is empty but says how far the feed is complete.
    const tail = await get('globex', `/v1/events?after=${globex.lastPositions.at(-1)}`);
    expect(tail.body.events).toEqual([]);
    expect(tail.body.lastPosition).toBeGreaterThanOrEqual(whole.events.at(-1).position);
  });

  it('follows live over SSE, id being the position, and Last-Event-ID resumes exactly after it', async () => {
    const { events } = await wholeFeed('acme', 1000);
    const stop = (n: number) => (messages: { id?: string }[]) => messages.filter((m) => m.id).length >= n;
    const first = await readSse(app.baseUrl, '/v1/events', as('acme'), stop(5));
    const firstFive = first.messages.filter((m) => m.id).slice(0, 5);
    expect(firstFive.map((m) => Number(m.id))).toEqual(events.slice(0, 5).map((e) => e.position));
    expect(JSON.parse(firstFive[0].data!)).toEqual(events[0]);
    const resumed = await readSse(app.baseUrl, '/v1/events', { ...as('acme'), 'last-event-id': firstFive[4].id! }, stop(events.length - 5));
    expect(
      resumed.messages
        .filter((m) => m.id)
        .map((m) => JSON.parse(m.data!))
        .slice(0, events.length - 5),
    ).toEqual(events.slice(5));
    // Live: a new execution's events arrive on a stream that is already open.
    const live = readSse(app.baseUrl, `/v1/events?after=${events.at(-1).position}`, as('acme'), (m) => m.some((x) => x.event === 'run.completed'));
    await new Promise((r) => setTimeout(r, 100));
    const started = await api(app.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'live' } }, as('acme'));
    const arrived = (await live).messages.filter((m) => m.id).map((m) => JSON.parse(m.data!));
    expect(arrived.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'output.text.done', 'run.completed']);
    expect(arrived.every((e) => e.executionId === started.body.id)).toBe(true);
  });

  it.each([['after=-1'], ['after=x'], ['limit=0'], ['limit=1001'], ['after=1&after=2'], ['since=3']])('rejects %s with 400', async (query) => {
    expectError(await get('acme', `/v1/events?${query}`), 400, 'VALIDATION_ERROR');
  });

  it('needs a key like every /v1 route', async () => {
    expectError(await api(app.baseUrl, 'GET', '/v1/events'), 401, 'UNAUTHENTICATED');
  });
});
