import { EVENT_STORE, EventStore } from '../../src/event-store/event-store';
import { cancelRequestStream } from '../../src/executions/cancel-requests';
import { executionStream } from '../../src/executions/execution-stream';
import { api, useApp, waitForExecution } from '../support/app-harness';
import { cancel, startScript } from '../support/execution-helpers';

/**
 * docs/operations.md#several-instances-on-postgresql: on every store (SQLite too) a cancel is a
 * request in the log that the runner follows; the request stays outside the execution's events
 * and the audit feed.
 */
describe('a cancel is a request in the log, on every store', () => {
  const app = useApp({ conversation: true });

  it('racing cancels leave one cancel.requested (the first reason), outside the execution stream and the feed', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'text', text: 'partial ' },
      { type: 'delay', ms: 30000 },
    ]);
    const id = started.id as string;
    await waitForExecution(app.baseUrl, id, (e) => e.lastSequence >= 3);
    const first = await cancel(app.baseUrl, id, { reason: 'first' });
    const later = await Promise.all(Array.from({ length: 5 }, (_, i) => cancel(app.baseUrl, id, { reason: `later ${i}` })));
    expect([first, ...later].map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(first.body.cancellation.reason).toBe('first');

    const store = app.app.get<EventStore>(EVENT_STORE);
    const requests = await store.readStream(cancelRequestStream(id));
    expect(requests.map((e) => [e.type, e.data.reason])).toEqual([['cancel.requested', 'first']]);
    const types = (await store.readStream(executionStream(id))).map((e) => e.type);
    expect(types).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.cancelled']);
    const feed = (await api(app.baseUrl, 'GET', '/v1/events?after=0&limit=1000')).body.events;
    expect(feed.map((e: { type: string }) => e.type)).not.toContain('cancel.requested');
  });
});
