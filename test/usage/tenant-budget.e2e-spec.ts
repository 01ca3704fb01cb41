import { Clock } from '../../src/common/clock';
import { useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { ACME, API_KEYS, GLOBEX, monthAround, tenantClient, usageStep } from './usage-support';

/** A clock the test moves by hand: the month boundary is crossed without waiting for it. */
class FakeClock implements Clock {
  constructor(private at: number) {}
  now(): Date {
    return new Date(this.at);
  }
  set(iso: string): void {
    this.at = Date.parse(iso);
  }
}

/**
 * docs/api.md#usage-and-budgets: TENANT_TOKEN_BUDGETS refuses a tenant's starts with
 * 429 QUOTA_EXCEEDED once its month-to-date usage is at or over its budget, until the month turns.
 */
describe('a tenant token budget', () => {
  // The runs' events carry the real time; the fake clock starts there and moves to the next month.
  const clock = new FakeClock(Date.now());
  const month = monthAround(new Date());
  const app = useApp({ env: { API_KEYS, TENANT_TOKEN_BUDGETS: 'acme:100' }, clock });
  const acme = tenantClient(() => app.baseUrl, ACME);
  const globex = tenantClient(() => app.baseUrl, GLOBEX);
  let conversationId: string;

  beforeAll(async () => {
    conversationId = await acme.conversation();
  });

  it('GET /v1/usage shows the budget and what is left; a tenant without one has null', async () => {
    expect((await acme.usage()).body.budget).toEqual({ tokens: 100, remaining: 100 });
    await acme.run(conversationId, [usageStep(40, 20)], { idempotencyKey: 'tenant-budget-key-0001' });
    expect((await acme.usage()).body.budget).toEqual({ tokens: 100, remaining: 40 });
    // Whatever window is asked for, the budget is this month's.
    expect((await acme.usage('?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z')).body.budget).toEqual({ tokens: 100, remaining: 40 });
    expect((await globex.usage()).body.budget).toBeNull();
  });

  it('at or over the budget a start is 429 QUOTA_EXCEEDED with Retry-After until the month turns, and appends nothing', async () => {
    // Under the budget (60 of 100): this start is taken, and it spends past the budget.
    await acme.run(conversationId, [usageStep(30, 20)]);
    expect((await acme.usage()).body.budget).toEqual({ tokens: 100, remaining: 0 });
    const before = (await acme.call('GET', `/v1/conversations/${conversationId}`)).body.executions.length;

    clock.set(new Date(Date.parse(month.to) - 90_500).toISOString());
    const refused = await acme.start(conversationId, [usageStep(1, 1)]);
    expectError(refused, 429, 'QUOTA_EXCEEDED');
    expect(refused.body.error.details).toEqual({ used: 110, budget: 100 });
    expect(refused.headers.get('retry-after')).toBe('91');
    expect((await acme.call('GET', `/v1/conversations/${conversationId}`)).body.executions).toHaveLength(before);
    // A replay of an execution that exists starts nothing: it is answered, not refused.
    const replay = await acme.start(conversationId, [usageStep(40, 20)], { idempotencyKey: 'tenant-budget-key-0001' });
    expect(replay.status).toBe(200);
    // A key never used is a new start: refused, and the key stays unused.
    expectError(await acme.start(conversationId, [], { idempotencyKey: 'tenant-budget-key-0002' }), 429, 'QUOTA_EXCEEDED');
    // Another tenant is not held to acme's budget.
    expect((await globex.start(await globex.conversation(), [usageStep(500, 500)])).status).toBe(201);
  });

  it('when the month turns the budget is whole again', async () => {
    clock.set(month.to);
    expect((await acme.usage()).body).toMatchObject({ from: month.to, budget: { tokens: 100, remaining: 100 } });
    const started = await acme.start(conversationId, [], { idempotencyKey: 'tenant-budget-key-0002' });
    expect(started.status).toBe(201);
  });
});

/**
 * The guarantee under concurrency (docs/api.md#usage-and-budgets): each start is checked against
 * the usage of runs that have ended; runs in flight are not counted, so concurrent starts at the
 * edge may all be taken and overshoot the budget. Once they have ended, the next start is refused.
 */
describe('concurrent starts at the edge of a tenant budget', () => {
  const app = useApp({ env: { TENANT_TOKEN_BUDGETS: 'default:100' }, conversation: true });
  const client = tenantClient(() => app.baseUrl, { authorization: '' });

  it('are each taken or refused whole; the overshoot is bounded by the runs in flight; then starts are refused', async () => {
    await client.run(app.conversationId, [usageStep(90, 0)]);
    const racing = 8;
    const answers = await Promise.all(Array.from({ length: racing }, () => client.start(app.conversationId, [{ type: 'delay', ms: 50 }, usageStep(10, 10)])));
    const statuses = answers.map((a) => a.status);
    expect(statuses.every((s) => s === 201 || s === 429)).toBe(true);
    const taken = answers.filter((a) => a.status === 201);
    expect(taken.length).toBeGreaterThanOrEqual(1);
    for (const refused of answers.filter((a) => a.status === 429)) expectError(refused, 429, 'QUOTA_EXCEEDED');
    for (const a of taken) await client.waitFor(a.body.id);

    const { totals, budget } = (await client.usage()).body;
    expect(totals.inputTokens + totals.outputTokens).toBe(90 + 20 * taken.length);
    expect(budget).toEqual({ tokens: 100, remaining: 0 });
    expectError(await client.start(app.conversationId, []), 429, 'QUOTA_EXCEEDED');
  });
});
