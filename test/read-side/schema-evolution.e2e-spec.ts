import { newId } from '../../src/common/ids';
import { EVENT_STORE, EventStore, NewEvent } from '../../src/event-store/event-store';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { EXECUTION_SCHEMA_VERSION } from '../../src/event-store/upcasters';
import { api, readSse, RunningApp, startApp, tempSqlitePath, describeOnSqlite } from '../support/app-harness';

/**
 * Events written at schema version 1 — when `run.completed` could leave `usage`
 * out — read as version 2 on every path after the upcaster and a rebuild of the read models.
 */
describeOnSqlite('schema evolution through upcasters', () => {
  let app: RunningApp;
  const executionId = newId();
  const conversationId = newId();
  afterAll(() => app?.close());

  beforeAll(async () => {
    const sqlitePath = tempSqlitePath();
    const store = SqliteEventStore.open(sqlitePath);
    const v1 = (type: string, data: Record<string, unknown>): NewEvent => ({
      type,
      data,
      occurredAt: '2026-01-02T03:04:05.000Z',
      metadata: { tenantId: 'default', schemaVersion: 1, correlationId: executionId, causationId: null },
    });
    await store.append(`conversation-${conversationId}`, [{ ...v1('conversation.created', { title: null, metadata: {} }) }], 'no_stream');
    await store.append(
      `execution-${executionId}`,
      [
        v1('run.queued', { conversationId, provider: 'scripted', input: { text: 'old' }, requiredCapabilities: [], config: {}, idempotencyKey: null }),
        v1('run.started', { provider: 'scripted' }),
        v1('output.text.delta', { delta: 'old' }),
        v1('output.text.done', { text: 'old' }),
        // The version-1 shape: no usage at all.
        v1('run.completed', {}),
      ],
      'no_stream',
    );
    await store.close();
    // A new read-model file: the projections are built from the log, through the upcaster.
    app = await startApp({ sqlitePath });
  });

  it('the current version is 2', () => {
    expect(EXECUTION_SCHEMA_VERSION).toBe(2);
  });

  it('replay, SSE and the audit feed show run.completed with usage: null', async () => {
    const replayed = await api(app.baseUrl, 'GET', `/v1/executions/${executionId}/events`);
    expect(replayed.body.events.at(-1).data).toEqual({ usage: null });
    const streamed = await readSse(app.baseUrl, `/v1/executions/${executionId}/events`);
    expect(JSON.parse(streamed.messages.filter((m) => m.id).at(-1)!.data!).data).toEqual({ usage: null });
    const feed = await api(app.baseUrl, 'GET', '/v1/events');
    expect(feed.body.events.find((e: any) => e.type === 'run.completed').data).toEqual({ usage: null });
  });

  it('the read models were built from the upcast events', async () => {
    const execution = await api(app.baseUrl, 'GET', `/v1/executions/${executionId}`);
    expect(execution.body).toMatchObject({ status: 'completed', outputText: 'old', lastSequence: 5 });
    const search = await api(app.baseUrl, 'GET', `/v1/executions?conversationId=${conversationId}`);
    expect(search.body.executions.map((e: any) => e.id)).toEqual([executionId]);
    const conversation = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
    expect(conversation.body.executions).toEqual([{ id: executionId, status: 'completed', provider: 'scripted', createdAt: '2026-01-02T03:04:05.000Z' }]);
  });

  it('new events are written at version 2 beside the old ones', async () => {
    const res = await api(app.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'new' } });
    expect(res.status).toBe(201);
    const store = app.app.get<EventStore>(EVENT_STORE);
    const [queued] = await store.readStream(`execution-${res.body.id}`, { limit: 1 });
    expect(queued.metadata.schemaVersion).toBe(2);
  });
});
