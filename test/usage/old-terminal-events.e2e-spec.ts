import { newId } from '../../src/common/ids';
import { NewEvent } from '../../src/event-store/event-store';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { api, describeOnSqlite, RunningApp, startApp, tempSqlitePath } from '../support/app-harness';

/**
 * Events appended before every terminal event carried `usage` (run.failed and run.cancelled
 * without it, at schema version 2) replay with `usage: null` and count in GET /v1/usage as
 * executions with no tokens (docs/api.md#usage-and-budgets).
 */
describeOnSqlite('terminal events from before usage was on each of them', () => {
  let app: RunningApp;
  const conversationId = newId();
  const failed = newId();
  const cancelled = newId();
  afterAll(() => app?.close());

  beforeAll(async () => {
    const sqlitePath = tempSqlitePath();
    const store = SqliteEventStore.open(sqlitePath);
    const v2 = (type: string, data: Record<string, unknown>): NewEvent => ({
      type,
      data,
      occurredAt: new Date().toISOString(),
      metadata: { tenantId: 'default', schemaVersion: 2, correlationId: null, causationId: null },
    });
    const queued = { conversationId, provider: 'scripted', input: { text: 'old' }, requiredCapabilities: [], config: {}, idempotencyKey: null };
    await store.append(`conversation-${conversationId}`, [v2('conversation.created', { title: null, metadata: {} })], 'no_stream');
    await store.append(
      `execution-${failed}`,
      [v2('run.queued', queued), v2('run.started', { provider: 'scripted' }), v2('run.failed', { error: { code: 'PROVIDER_ERROR', message: 'old' } })],
      'no_stream',
    );
    await store.append(`execution-${cancelled}`, [v2('run.queued', queued), v2('run.cancelled', { reason: 'old', providerCleanupError: null })], 'no_stream');
    await store.close();
    app = await startApp({ sqlitePath });
  });

  it('replay and the audit feed show usage: null', async () => {
    const events = (await api(app.baseUrl, 'GET', `/v1/executions/${failed}/events`)).body.events;
    expect(events.at(-1).data).toEqual({ error: { code: 'PROVIDER_ERROR', message: 'old' }, usage: null });
    const feed = (await api(app.baseUrl, 'GET', '/v1/events')).body.events;
    expect(feed.find((e: any) => e.type === 'run.cancelled').data).toEqual({ reason: 'old', providerCleanupError: null, usage: null });
  });

  it('the usage read model counts them with no tokens, and search finds the failure by its code', async () => {
    const usage = (await api(app.baseUrl, 'GET', '/v1/usage?groupBy=conversation')).body;
    expect(usage.totals).toEqual({ inputTokens: 0, outputTokens: 0, executions: 2 });
    expect(usage.groups).toEqual([{ key: conversationId, inputTokens: 0, outputTokens: 0, executions: 2 }]);
    const found = (await api(app.baseUrl, 'GET', '/v1/executions?errorCode=PROVIDER_ERROR')).body.executions;
    expect(found.map((e: any) => e.id)).toEqual([failed]);
  });
});
