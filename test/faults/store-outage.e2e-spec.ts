import { EVENT_STORE, EventStore } from '../../src/event-store/event-store';
import { Projector } from '../../src/read-models/projector';
import { api, createConversation, JsonResponse, RunningApp, startApp, startExecution, waitForExecution, describeOnSqlite } from '../support/app-harness';
import { expectError, replay } from '../support/execution-helpers';
import { countRefusals, injectAppendFaults, sqliteOutage } from '../support/store-faults';

/**
 * Store faults through real HTTP over a real SQLite file whose writes really fail: executions
 * streaming while the store refuses appends for a few seconds, and longer than STORE_RETRY_MS.
 */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** 3,000 numbered deltas, with a short pause every 20 so the run is still streaming when the outage begins. */
const script = (label: string, pauseMs = 2, n = 3000) =>
  Array.from({ length: n }, (_, i) => [{ type: 'text', text: `${label}.${i} ` }, ...(i % 20 === 19 ? [{ type: 'delay', ms: pauseMs }] : [])]).flat();
const textsOf = (steps: Record<string, unknown>[]) => steps.filter((s) => s.type === 'text').map((s) => s.text as string);

const deltas = (events: any[]) => events.filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta);
const expectContiguous = (events: any[]) => expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));

/** Every response the suite saw, to assert that none was a 500. */
function recording(baseUrl: string) {
  const seen: JsonResponse[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api(baseUrl, method, path, body);
    seen.push(res);
    return res;
  };
  return { call, statuses: () => seen.map((r) => r.status) };
}

describeOnSqlite('store outages through HTTP (real SQLite failures)', () => {
  let app: RunningApp;
  let store: EventStore;
  afterEach(() => app?.close());

  it('an outage of a few seconds while six executions stream: no hole, every run completes, 503 not 500, byte-identical after restart', async () => {
    app = await startApp({ storeRetryMs: 30_000, logLevel: 'silent' });
    store = app.app.get(EVENT_STORE);
    const { call, statuses } = recording(app.baseUrl);
    const conversationId = await createConversation(app.baseUrl);
    const scripts = Array.from({ length: 6 }, (_, k) => script(`r${k}`));
    const ids: string[] = [];
    for (const steps of scripts) {
      const res = await startExecution(app.baseUrl, { conversationId, config: { script: steps } });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    await waitForExecution(app.baseUrl, ids[0], (e) => e.lastSequence > 300);

    const refusals = countRefusals(store);
    const outage = sqliteOutage(store);
    outage.begin();
    // During the outage: a small write may still fit in the file's free pages, as on a real full
    // disk; one that does not answers 503 with Retry-After. Reads keep working.
    await sleep(300);
    const during = await call('POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'during' } });
    if (during.status === 201) {
      ids.push(during.body.id);
      scripts.push([{ type: 'text', text: 'during' }]);
    } else {
      expectError(during, 503, 'SERVICE_UNAVAILABLE');
      expect(during.headers.get('retry-after')).toBe('1');
    }
    expect((await call('GET', `/v1/executions/${ids[0]}`)).status).toBe(200);
    expect((await call('GET', `/v1/executions/${ids[1]}/events?limit=5`)).status).toBe(200);
    await sleep(1700);
    const midway = await Promise.all(ids.map((id) => call('GET', `/v1/executions/${id}`)));
    outage.end();

    const ended = await Promise.all(ids.map((id) => waitForExecution(app.baseUrl, id, undefined, 60_000)));
    expect(midway.some((r) => r.body.status === 'running')).toBe(true);
    expect(refusals.count).toBeGreaterThan(6);
    for (const [k, execution] of ended.entries()) {
      expect(execution.status).toBe('completed');
      const events = await replay(app.baseUrl, ids[k]);
      expectContiguous(events);
      expect(deltas(events)).toEqual(textsOf(scripts[k]));
      expect(events.at(-2).data.text).toBe(textsOf(scripts[k]).join(''));
      expect(new Set(events.map((e) => e.sequence)).size).toBe(events.length);
    }
    // New work runs once the store takes writes again.
    const after = await startExecution(app.baseUrl, { conversationId });
    expect(after.status).toBe(201);
    expect((await waitForExecution(app.baseUrl, after.body.id)).status).toBe('completed');
    expect(statuses().filter((s) => s >= 500 && s !== 503)).toEqual([]);

    // After a restart every replay reads back byte for byte.
    const before = await Promise.all(ids.map((id) => api(app.baseUrl, 'GET', `/v1/executions/${id}/events`)));
    const sqlitePath = app.sqlitePath;
    await app.close();
    app = await startApp({ sqlitePath });
    for (const [k, id] of ids.entries()) {
      expect((await api(app.baseUrl, 'GET', `/v1/executions/${id}/events`)).text).toBe(before[k].text);
    }
  }, 120_000);

  it('an outage longer than STORE_RETRY_MS ends every streaming run with RUNTIME_INTERRUPTED once the store is back, with no hole', async () => {
    app = await startApp({ storeRetryMs: 400, logLevel: 'silent' });
    store = app.app.get(EVENT_STORE);
    const conversationId = await createConversation(app.baseUrl);
    const scripts = Array.from({ length: 3 }, (_, k) => script(`long${k}`, 40));
    const ids: string[] = [];
    for (const steps of scripts) ids.push((await startExecution(app.baseUrl, { conversationId, config: { script: steps } })).body.id);
    await waitForExecution(app.baseUrl, ids[2], (e) => e.lastSequence > 100);

    const outage = sqliteOutage(store, 'read-only');
    outage.begin();
    const refused = await api(app.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'x' } });
    expectError(refused, 503, 'SERVICE_UNAVAILABLE');
    expect(refused.headers.get('retry-after')).toBe('1');
    expectError(await api(app.baseUrl, 'POST', '/v1/conversations', {}), 503, 'SERVICE_UNAVAILABLE');
    expect((await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`)).status).toBe(200);
    await sleep(1500);
    // Past the bound, nothing more is taken: the runs are no longer streaming into the void.
    const stuck = await Promise.all(ids.map((id) => api(app.baseUrl, 'GET', `/v1/executions/${id}`)));
    outage.end();

    for (const [k, id] of ids.entries()) {
      const execution = await waitForExecution(app.baseUrl, id, undefined, 15_000);
      expect(execution.status).toBe('failed');
      expect(execution.error.code).toBe('RUNTIME_INTERRUPTED');
      expect(execution.error.message).toMatch(/event store/);
      const events = await replay(app.baseUrl, id);
      expectContiguous(events);
      const stored = deltas(events);
      expect(stored).toEqual(textsOf(scripts[k]).slice(0, stored.length));
      expect(events.at(-1).type).toBe('run.failed');
      expect(stuck[k].body.lastSequence).toBe(events.length - 1);
    }
  }, 60_000);

  it('a cancel during an outage answers 503, a retried cancel joins it, and the run ends cancelled once the store is back', async () => {
    app = await startApp({ storeRetryMs: 30_000, logLevel: 'silent' });
    store = app.app.get(EVENT_STORE);
    const conversationId = await createConversation(app.baseUrl);
    const id = (await startExecution(app.baseUrl, { conversationId, config: { script: script('c', 40) } })).body.id;
    await waitForExecution(app.baseUrl, id, (e) => e.lastSequence > 100);
    const outage = sqliteOutage(store, 'read-only');
    outage.begin();
    await sleep(100);
    const first = await api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`, { reason: 'disk' });
    expectError(first, 503, 'SERVICE_UNAVAILABLE');
    expect(first.headers.get('retry-after')).toBe('1');
    expectError(await api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`, { reason: 'again' }), 503, 'SERVICE_UNAVAILABLE');
    outage.end();
    let answer: JsonResponse;
    for (;;) {
      answer = await api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`, { reason: 'retried' });
      if (answer.status !== 503) break;
      await sleep(Number(answer.headers.get('retry-after')) * 100);
    }
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('cancelled');
    expect(answer.body.cancellation).toEqual({ reason: 'disk', providerCleanupError: null });
    const events = await replay(app.baseUrl, id);
    expect(events.filter((e) => e.type === 'run.cancelled')).toHaveLength(1);
    expectContiguous(events);
  }, 60_000);

  it('a launch that cannot store run.started still answers 201 and ends the run; the key then returns the ended execution', async () => {
    app = await startApp({ storeRetryMs: 300, logLevel: 'silent' });
    store = app.app.get(EVENT_STORE);
    const conversationId = await createConversation(app.baseUrl);
    let refuse = true;
    const restore = injectAppendFaults(store, (_, events) => (refuse && events[0].type === 'run.started' ? 'refuse' : null));
    const body = { conversationId, provider: 'scripted', input: { text: 'hello' }, idempotencyKey: 'launch-fails' };
    const started = await api(app.baseUrl, 'POST', '/v1/executions', body);
    expect(started.status).toBe(201);
    const ended = await waitForExecution(app.baseUrl, started.body.id);
    refuse = false;
    restore();
    expect(ended.status).toBe('failed');
    expect(ended.error.code).toBe('RUNTIME_INTERRUPTED');
    const again = await api(app.baseUrl, 'POST', '/v1/executions', body);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ id: started.body.id, status: 'failed' });
  });

  it('a start whose claim was stored but whose run.queued was refused: 503, and a retry with the key completes that request', async () => {
    app = await startApp();
    store = app.app.get(EVENT_STORE);
    const conversationId = await createConversation(app.baseUrl);
    let refusals = 0;
    const restore = injectAppendFaults(store, (_, events) => (events[0].type === 'run.queued' && refusals++ === 0 ? 'refuse' : null));
    const body = { conversationId, provider: 'scripted', input: { text: 'hello world' }, idempotencyKey: 'queued-refused' };
    expectError(await api(app.baseUrl, 'POST', '/v1/executions', body), 503, 'SERVICE_UNAVAILABLE');
    const retried = await api(app.baseUrl, 'POST', '/v1/executions', body);
    restore();
    expect([200, 201]).toContain(retried.status);
    const execution = await waitForExecution(app.baseUrl, retried.body.id);
    expect(execution.status).toBe('completed');
    expect(execution.outputText).toBe('hello world');
    const conversation = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
    expect(conversation.body.executions.map((e: any) => e.id)).toEqual([retried.body.id]);
  });

  it('a read-model file that cannot be written: queries answer 503, never 500, and the index catches up without a gap once it can', async () => {
    app = await startApp();
    // The connection that writes: the projector thread's (its fault hook), or the loop's own.
    const readModels = app.app.get(Projector).writer;
    const conversationId = await createConversation(app.baseUrl);
    const first = (await startExecution(app.baseUrl, { conversationId })).body.id;
    await waitForExecution(app.baseUrl, first);
    readModels.pragma('query_only = ON');
    const second = await startExecution(app.baseUrl, { conversationId });
    expect(second.status).toBe(201);
    expectError(await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`), 503, 'SERVICE_UNAVAILABLE');
    // The execution's own resource reads its stream and keeps working (scripted never asks for
    // the history, so nothing of the run reads the read models).
    expect((await waitForExecution(app.baseUrl, second.body.id)).status).toBe('completed');
    readModels.pragma('query_only = OFF');
    // The projector retries with backoff; a client honouring Retry-After gets the list once it has.
    let listed = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
    for (let tries = 0; listed.status === 503 && tries < 50; tries++) {
      await sleep(100);
      listed = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
    }
    expect(listed.status).toBe(200);
    expect(listed.body.executions.map((e: any) => [e.id, e.status])).toEqual([
      [first, 'completed'],
      [second.body.id, 'completed'],
    ]);
  });
});
