import { api, createConversation, describeOnSqlite, startApp, startExecution, tempSqlitePath, waitForExecution } from '../support/app-harness';
import { replay, waitForAction } from '../support/execution-helpers';

/**
 * docs/api.md#concurrency: executions queued behind others outlive a restart. The next start ends
 * the run left in flight (RUNTIME_INTERRUPTED) but adopts the queued ones, which then run in
 * creation order instead of being swept as interrupted.
 */
describeOnSqlite('enqueued executions across a restart', () => {
  it('the next start adopts them: each runs once its predecessor has ended, in order', async () => {
    const sqlitePath = tempSqlitePath();
    const first = await startApp({ sqlitePath });
    const c = await createConversation(first.baseUrl, { concurrency: 'enqueue' });
    const blocking = (await startExecution(first.baseUrl, { conversationId: c, config: { script: [{ type: 'action', kind: 'approval', prompt: 'go?' }] } }))
      .body;
    await waitForAction(first.baseUrl, blocking.id);
    const queued = [];
    for (let i = 0; i < 3; i++) queued.push((await startExecution(first.baseUrl, { conversationId: c, input: { text: `turn ${i}` } })).body);
    expect(queued.map((e) => e.status)).toEqual(['queued', 'queued', 'queued']);
    await first.close();

    const second = await startApp({ sqlitePath });
    try {
      expect(await waitForExecution(second.baseUrl, blocking.id)).toMatchObject({ status: 'failed', error: { code: 'RUNTIME_INTERRUPTED' } });
      for (const e of queued) expect((await waitForExecution(second.baseUrl, e.id)).status).toBe('completed');
      const feed = (await api(second.baseUrl, 'GET', '/v1/events?limit=1000')).body.events;
      const position = (id: string, type: string) => feed.find((e: any) => e.executionId === id && e.type === type).position;
      const order = [blocking.id, ...queued.map((e) => e.id)];
      for (let i = 1; i < order.length; i++) {
        expect(position(order[i], 'run.started')).toBeGreaterThan(position(order[i - 1], i === 1 ? 'run.failed' : 'run.completed'));
      }
      for (const e of queued) {
        const types = (await replay(second.baseUrl, e.id)).map((x) => x.type);
        expect(types.filter((t) => t === 'run.started')).toHaveLength(1);
        expect(types.at(-1)).toBe('run.completed');
      }
    } finally {
      await second.close();
    }
  });
});
