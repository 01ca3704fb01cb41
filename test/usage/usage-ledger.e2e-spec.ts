import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { ACME, API_KEYS, GLOBEX, counter, monthAround, tenantClient, usageStep } from './usage-support';

/**
 * docs/api.md#usage-and-budgets: every terminal event records the usage spent so far, and
 * GET /v1/usage sums it per tenant, by the time each execution ended, in groups that page.
 */
describe('the usage ledger', () => {
  const app = useApp({ env: { API_KEYS } });
  const acme = tenantClient(() => app.baseUrl, ACME);
  const globex = tenantClient(() => app.baseUrl, GLOBEX);
  const ids: Record<string, string> = {};
  let conversations: string[];

  beforeAll(async () => {
    // In key order, as the groups come.
    conversations = [await acme.conversation(), await acme.conversation()].sort();
    const [first, second] = conversations;
    ids.completed = (await acme.run(first, [usageStep(3, 4), { type: 'text', text: 'done' }, usageStep(1, 1)])).id;
    ids.failed = (await acme.run(first, [usageStep(10, 0), { type: 'fail', message: 'boom' }])).id;
    const started = await acme.start(second, [usageStep(2, 2), { type: 'action', kind: 'approval', prompt: 'go on?' }]);
    ids.cancelled = started.body.id;
    await acme.waitFor(ids.cancelled, (e) => e.status === 'requires_action');
    expect((await acme.call('POST', `/v1/executions/${ids.cancelled}:cancel`, { reason: 'enough' })).status).toBe(200);
    ids.silent = (await acme.run(second, [{ type: 'text', text: 'no usage here' }])).id;
    ids.other = (await globex.run(await globex.conversation(), [usageStep(100, 100)])).id;
  });

  it('run.completed, run.failed and run.cancelled carry the usage spent up to the end; a script without usage steps reports null', async () => {
    expect((await acme.events(ids.completed)).at(-1)).toMatchObject({ type: 'run.completed', data: { usage: { inputTokens: 4, outputTokens: 5 } } });
    expect((await acme.events(ids.failed)).at(-1)).toMatchObject({
      type: 'run.failed',
      data: { error: { code: 'PROVIDER_ERROR' }, usage: { inputTokens: 10, outputTokens: 0 } },
    });
    expect((await acme.events(ids.cancelled)).at(-1)).toMatchObject({
      type: 'run.cancelled',
      data: { reason: 'enough', usage: { inputTokens: 2, outputTokens: 2 } },
    });
    expect((await acme.events(ids.silent)).at(-1)).toEqual(expect.objectContaining({ type: 'run.completed', data: { usage: null } }));
  });

  it('sums the tenant’s executions of the current month by default, grouped by provider', async () => {
    const res = await acme.usage();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...monthAround(new Date()),
      totals: { inputTokens: 16, outputTokens: 7, executions: 4 },
      budget: null,
      groups: [{ key: 'scripted', inputTokens: 16, outputTokens: 7, executions: 4 }],
      nextCursor: null,
    });
    // The other tenant sees only its own.
    expect((await globex.usage()).body.totals).toEqual({ inputTokens: 100, outputTokens: 100, executions: 1 });
  });

  it('groups by model (scripted names none: null), conversation and UTC day', async () => {
    expect((await acme.usage('?groupBy=model')).body.groups).toEqual([{ key: null, inputTokens: 16, outputTokens: 7, executions: 4 }]);
    expect((await acme.usage('?groupBy=conversation')).body.groups).toEqual([
      { key: conversations[0], inputTokens: 14, outputTokens: 5, executions: 2 },
      { key: conversations[1], inputTokens: 2, outputTokens: 2, executions: 2 },
    ]);
    const day = (await acme.events(ids.silent)).at(-1).occurredAt.slice(0, 10);
    const byDay = (await acme.usage('?groupBy=day')).body.groups;
    expect(byDay.map((g: any) => g.key)).toContain(day);
    expect(byDay.reduce((n: number, g: any) => n + g.executions, 0)).toBe(4);
  });

  it('pages the groups with limit and cursor; a cursor of another grouping is refused', async () => {
    const first = await acme.usage('?groupBy=conversation&limit=1');
    expect(first.body.groups.map((g: any) => g.key)).toEqual([conversations[0]]);
    expect(first.body.totals.executions).toBe(4);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await acme.usage(`?groupBy=conversation&limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body.groups.map((g: any) => g.key)).toEqual([conversations[1]]);
    expect(second.body.nextCursor).toBeNull();
    expectError(await acme.usage(`?groupBy=day&cursor=${first.body.nextCursor}`), 400, 'VALIDATION_ERROR');
  });

  it('counts executions by when they ended: a window before them is empty', async () => {
    const res = await acme.usage('?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z');
    expect(res.body).toMatchObject({
      from: '2020-01-01T00:00:00.000Z',
      to: '2020-02-01T00:00:00.000Z',
      totals: { inputTokens: 0, outputTokens: 0, executions: 0 },
      groups: [],
    });
    const ended = (await acme.events(ids.completed)).at(-1).occurredAt as string;
    const after = new Date(Date.parse(ended) + 1).toISOString();
    // `to` is exclusive, `from` inclusive.
    expect((await acme.usage(`?from=${ended}&to=${after}`)).body.totals.executions).toBeGreaterThanOrEqual(1);
    expect((await acme.usage(`?from=2020-01-01T00:00:00Z&to=${ended}`)).body.totals.executions).toBe(0);
  });

  it('refuses bad queries with the envelope', async () => {
    for (const query of [
      '?groupBy=tenant',
      '?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      '?from=yesterday',
      '?to=2026-13-45',
      '?limit=0',
      '?limit=101',
      '?limit=ten',
      '?cursor=not-a-cursor',
      '?page=2',
    ]) {
      expectError(await acme.usage(query), 400, 'VALIDATION_ERROR');
    }
    expectError(await api(app.baseUrl, 'GET', '/v1/usage'), 401, 'UNAUTHENTICATED');
  });

  it('search filters by the run.failed code; an unknown code is refused', async () => {
    const failed = await acme.call('GET', '/v1/executions?errorCode=PROVIDER_ERROR');
    expect(failed.body.executions.map((e: any) => e.id)).toEqual([ids.failed]);
    expect((await acme.call('GET', '/v1/executions?errorCode=BUDGET_EXCEEDED')).body.executions).toEqual([]);
    expectError(await acme.call('GET', '/v1/executions?errorCode=NOPE'), 400, 'VALIDATION_ERROR');
  });

  it('/metrics agrees: tokens by direction are the tenants’ usage totals; failures count by code', async () => {
    const metrics = (await api(app.baseUrl, 'GET', '/metrics')).text;
    const [a, g] = [(await acme.usage()).body.totals, (await globex.usage()).body.totals];
    expect(counter(metrics, 'runledger_tokens_total', { provider: 'scripted', direction: 'input' })).toBe(a.inputTokens + g.inputTokens);
    expect(counter(metrics, 'runledger_tokens_total', { provider: 'scripted', direction: 'output' })).toBe(a.outputTokens + g.outputTokens);
    expect(counter(metrics, 'runledger_executions_failed_total', { code: 'PROVIDER_ERROR' })).toBe(1);
  });
});
