import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { counter, tenantClient, usageStep } from './usage-support';

/** docs/api.md#usage-and-budgets: `budget.maxTotalTokens` stops a run once its reported usage passes it. */
describe('a per-execution token budget', () => {
  const app = useApp({ conversation: true });
  const client = tenantClient(() => app.baseUrl, { authorization: '' });
  const executionsOf = async (conversationId: string) => (await client.call('GET', `/v1/conversations/${conversationId}`)).body.executions;

  it('passing it stops the scripted run: run.failed BUDGET_EXCEEDED with the usage so far, nothing after it', async () => {
    const script = [usageStep(4, 4), { type: 'text', text: 'first ' }, usageStep(3, 0), { type: 'text', text: 'never' }, usageStep(1, 1)];
    const started = await client.start(app.conversationId, script, { budget: { maxTotalTokens: 10 }, config: { script, cleanup: 'fail' } });
    expect(started.status).toBe(201);
    expect(started.body.budget).toEqual({ maxTotalTokens: 10 });
    const execution = await client.waitFor(started.body.id);
    expect(execution).toMatchObject({ status: 'failed', error: { code: 'BUDGET_EXCEEDED' }, budget: { maxTotalTokens: 10 } });
    const events = await client.events(started.body.id);
    expect(events[0].data.budget).toEqual({ maxTotalTokens: 10 });
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.failed']);
    expect(events.at(-1).data).toEqual({
      error: { code: 'BUDGET_EXCEEDED', message: expect.stringContaining('11 tokens') },
      usage: { inputTokens: 7, outputTokens: 4 },
    });

    const found = await client.call('GET', '/v1/executions?errorCode=BUDGET_EXCEEDED');
    expect(found.body.executions.map((e: any) => e.id)).toEqual([started.body.id]);
    const metrics = (await api(app.baseUrl, 'GET', '/metrics')).text;
    expect(counter(metrics, 'runledger_executions_failed_total', { code: 'BUDGET_EXCEEDED' })).toBe(1);
    expect(counter(metrics, 'runledger_tokens_total', { direction: 'input' })).toBe(7);
  });

  it('spending exactly the budget completes; without one nothing is recorded of it', async () => {
    const exact = await client.run(app.conversationId, [usageStep(5, 5)], { budget: { maxTotalTokens: 10 } });
    expect(exact).toMatchObject({ status: 'completed', budget: { maxTotalTokens: 10 } });
    const none = await client.start(app.conversationId, [usageStep(5, 5)], { budget: null });
    expect(none.body).not.toHaveProperty('budget');
    expect((await client.events(none.body.id))[0].data).not.toHaveProperty('budget');
  });

  it('an idempotent replay compares the budget like every other field', async () => {
    const key = 'budget-replay-key-0001';
    const first = await client.start(app.conversationId, [usageStep(1, 1)], { budget: { maxTotalTokens: 50 }, idempotencyKey: key });
    expect(first.status).toBe(201);
    const again = await client.start(app.conversationId, [usageStep(1, 1)], { budget: { maxTotalTokens: 50 }, idempotencyKey: key });
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 200, id: first.body.id });
    expectError(
      await client.start(app.conversationId, [usageStep(1, 1)], { budget: { maxTotalTokens: 51 }, idempotencyKey: key }),
      409,
      'IDEMPOTENCY_CONFLICT',
    );
    expectError(await client.start(app.conversationId, [usageStep(1, 1)], { idempotencyKey: key }), 409, 'IDEMPOTENCY_CONFLICT');
    // A key used without a budget: the same request still matches, one with a budget does not.
    const plain = 'budget-replay-key-0002';
    expect((await client.start(app.conversationId, [], { idempotencyKey: plain })).status).toBe(201);
    expect((await client.start(app.conversationId, [], { idempotencyKey: plain })).status).toBe(200);
    expectError(await client.start(app.conversationId, [], { idempotencyKey: plain, budget: { maxTotalTokens: 1 } }), 409, 'IDEMPOTENCY_CONFLICT');
  });

  it('a bad budget or usage step is a 400 that appends nothing', async () => {
    const conversationId = await client.conversation();
    for (const budget of [
      0,
      5,
      '5',
      [],
      {},
      { maxTotalTokens: 0 },
      { maxTotalTokens: -1 },
      { maxTotalTokens: 1.5 },
      { maxTotalTokens: '10' },
      { maxTotalTokens: 1e13 },
      { maxTotalTokens: 5, extra: 1 },
    ]) {
      expectError(await client.start(conversationId, [], { budget }), 400, 'VALIDATION_ERROR');
    }
    for (const step of [
      usageStep(-1, 0),
      usageStep(0, 1.5),
      usageStep(1_000_000_001, 0),
      { type: 'usage', inputTokens: 1 },
      { type: 'usage', inputTokens: '1', outputTokens: 1 },
      { ...usageStep(1, 1), total: 2 },
    ]) {
      expectError(await client.start(conversationId, [step]), 400, 'VALIDATION_ERROR');
    }
    expect(await executionsOf(conversationId)).toEqual([]);
  });
});
