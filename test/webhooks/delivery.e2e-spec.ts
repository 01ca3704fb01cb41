import { api, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { DELIVERY_ENV, Receiver, verify } from './receiver';

/** docs/webhooks.md#delivery: signed Standard Webhooks deliveries, retries, 410, order. */
describe('webhook delivery', () => {
  const app = useApp({ env: DELIVERY_ENV, conversation: true });
  let receiver: Receiver;
  beforeEach(async () => (receiver = await Receiver.start()));
  afterEach(() => receiver.close());

  const register = async (body: Record<string, unknown> = {}) => {
    const res = await api(app.baseUrl, 'POST', '/v1/webhooks', { url: receiver.url, ...body });
    expect(res.status).toBe(201);
    return res.body;
  };
  const deleteAll = async () => {
    for (const hook of (await api(app.baseUrl, 'GET', '/v1/webhooks')).body.webhooks) await api(app.baseUrl, 'DELETE', `/v1/webhooks/${hook.id}`);
  };
  afterEach(deleteAll);

  it('delivers the lifecycle events of an execution in order, signed as Standard Webhooks verifies', async () => {
    const hook = await register();
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(hook).toMatchObject({
      status: 'enabled',
      events: ['run.started', 'action.required', 'action.responded', 'artifact.created', 'run.completed', 'run.failed', 'run.cancelled'],
    });
    const execution = (await startExecution(app.baseUrl, { conversationId: app.conversationId })).body;
    await waitForExecution(app.baseUrl, execution.id);
    const got = await receiver.until((r) => r.some((x) => x.json.type === 'run.completed'));
    expect(got.map((r) => r.json.type)).toEqual(['run.started', 'run.completed']);
    for (const request of got) {
      expect(verify(hook.secret, request)).toEqual(request.json);
      expect(request.json.data).toMatchObject({ executionId: execution.id, type: request.json.type });
    }
    // The payload's data is the event exactly as the audit feed shows it.
    const feed = (await api(app.baseUrl, 'GET', '/v1/events')).body.events.filter((e: any) => e.executionId === execution.id);
    expect(got.map((r) => r.json.data)).toEqual(feed.filter((e: any) => ['run.started', 'run.completed'].includes(e.type)));
    expect(got[0].json.timestamp).toBe(got[0].json.data.occurredAt);
    // The outcome is written after the receiver answered: wait for it.
    const log = await waitForLog(hook.id, (d) => d.length === 2 && d.every((x) => x.status === 'delivered'));
    expect(log).toMatchObject([
      { id: got[0].headers['webhook-id'], eventType: 'run.started', executionId: execution.id, status: 'delivered', attempts: 1, lastStatusCode: 200 },
      { id: got[1].headers['webhook-id'], eventType: 'run.completed', status: 'delivered', attempts: 1 },
    ]);
    expect(JSON.stringify((await api(app.baseUrl, 'GET', `/v1/webhooks/${hook.id}`)).body)).not.toContain(hook.secret);
    const metrics = (await api(app.baseUrl, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/runledger_webhook_attempts_total\{outcome="delivered",status="200"\} [1-9]/);
    expect(metrics).toContain('runledger_webhook_attempt_duration_seconds_count');
    expect(metrics).toContain(`runledger_webhook_oldest_pending_seconds{webhook="${hook.id}"} 0`);
  });

  it('retries a receiver that answers 500 twice, then 200: three attempts with one webhook-id', async () => {
    const hook = await register({ events: ['run.completed'] });
    receiver.reply = (_request, count) => (count <= 2 ? 500 : 200);
    const execution = (await startExecution(app.baseUrl, { conversationId: app.conversationId })).body;
    const got = await receiver.until((r) => r.length >= 3);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const request of got) verify(hook.secret, request);
    const log = await waitForLog(hook.id, (d) => d[0]?.status === 'delivered');
    expect(log[0]).toMatchObject({ executionId: execution.id, attempts: 3, lastStatusCode: 200, nextAttemptAt: null });
  });

  it('fails a delivery after the last attempt and goes on with later events', async () => {
    const hook = await register({ events: ['run.started', 'run.completed'] });
    receiver.reply = (request) => (request.json.type === 'run.started' ? 503 : 200);
    const execution = (await startExecution(app.baseUrl, { conversationId: app.conversationId })).body;
    await receiver.until((r) => r.some((x) => x.json.type === 'run.completed'));
    expect(receiver.of(execution.id).map((r) => r.json.type)).toEqual(['run.started', 'run.started', 'run.started', 'run.completed']);
    const log = await waitForLog(hook.id, (d) => d.length === 2 && d[1].status === 'delivered');
    expect(log[0]).toMatchObject({ status: 'failed', attempts: 3, lastStatusCode: 503 });
  });

  it('disables the endpoint on 410 Gone', async () => {
    const hook = await register({ events: ['run.started', 'run.completed'] });
    receiver.reply = () => 410;
    await startExecution(app.baseUrl, { conversationId: app.conversationId });
    await receiver.until((r) => r.length >= 1);
    await waitFor(async () => (await api(app.baseUrl, 'GET', `/v1/webhooks/${hook.id}`)).body.status === 'disabled');
    expect(receiver.received).toHaveLength(1);
  });

  it('keeps each execution in order while several go in parallel, through a receiver that is down for a while', async () => {
    await register({ events: ['run.started', 'output.text.delta', 'run.completed'] });
    let down = true;
    receiver.reply = () => (down ? 503 : 200);
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await startExecution(app.baseUrl, { conversationId: app.conversationId })).body.id);
    for (const id of ids) await waitForExecution(app.baseUrl, id);
    await receiver.until((r) => r.length >= 4);
    down = false;
    await receiver.until(() => ids.every((id) => receiver.of(id).some((r) => r.json.type === 'run.completed' && r.headers['webhook-id'] !== undefined)));
    for (const id of ids) {
      const delivered = receiver.of(id);
      const sequences = [...new Set(delivered.map((r) => r.json.data.sequence))];
      // Every event arrived (2 = run.started, 3..6 = the deltas, 8 = run.completed), none before an earlier one.
      expect(sequences).toEqual([2, 3, 4, 5, 6, 8]);
    }
  });

  async function waitForLog(id: string, done: (deliveries: any[]) => boolean): Promise<any[]> {
    let deliveries: any[] = [];
    await waitFor(async () => done((deliveries = (await api(app.baseUrl, 'GET', `/v1/webhooks/${id}/deliveries`)).body.deliveries)));
    return deliveries;
  }
});

export async function waitFor(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
