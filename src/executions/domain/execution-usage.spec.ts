import { decide } from './execution-decide';
import { ExecutionEvent, RecordedExecutionEvent } from './execution-events';
import { fold } from './execution-state';
import { addUsage, budgetExceeded, totalTokens, usageOf } from './execution-usage';

const queued = (budget?: { maxTotalTokens: number }): ExecutionEvent => ({
  type: 'run.queued',
  data: {
    conversationId: 'c-1',
    provider: 'scripted',
    input: { text: 'hi' },
    requiredCapabilities: [],
    config: {},
    idempotencyKey: null,
    ...(budget && { budget }),
  },
});
const recorded = (events: ExecutionEvent[]): RecordedExecutionEvent[] =>
  events.map((e, i) => ({ ...e, sequence: i + 1, occurredAt: '2026-09-02T10:00:00.000Z' }) as RecordedExecutionEvent);

describe('usage and budgets (docs/api.md#usage-and-budgets)', () => {
  it('sums reports; nothing reported stays null, and a report of zeros is still a report', () => {
    expect(usageOf([])).toBeNull();
    expect(usageOf([null, null])).toBeNull();
    expect(usageOf([{ inputTokens: 0, outputTokens: 0 }])).toEqual({ inputTokens: 0, outputTokens: 0 });
    expect(usageOf([{ inputTokens: 3, outputTokens: 4 }, null, { inputTokens: 10, outputTokens: 1 }])).toEqual({ inputTokens: 13, outputTokens: 5 });
    expect(addUsage(null, { inputTokens: 1, outputTokens: 2 })).toEqual({ inputTokens: 1, outputTokens: 2 });
    expect(totalTokens(null)).toBe(0);
  });

  it('a budget is passed only by spending more than it: exactly the budget is fine', () => {
    const state = { budget: { maxTotalTokens: 10 } };
    expect(budgetExceeded(state, { inputTokens: 6, outputTokens: 4 })).toBeNull();
    expect(budgetExceeded(state, { inputTokens: 6, outputTokens: 5 })).toEqual({ code: 'BUDGET_EXCEEDED', message: expect.stringContaining('11 tokens') });
    expect(budgetExceeded({}, { inputTokens: 1e9, outputTokens: 1e9 })).toBeNull();
    expect(budgetExceeded(state, null)).toBeNull();
  });

  it('the budget is folded from run.queued; every terminal event records the usage, which the state keeps', () => {
    const state = fold(recorded([queued({ maxTotalTokens: 5 })]), 'x')!;
    expect(state.budget).toEqual({ maxTotalTokens: 5 });
    expect(fold(recorded([queued()]), 'x')!.budget).toBeUndefined();
    const usage = { inputTokens: 2, outputTokens: 9 };
    const error = budgetExceeded(state, usage)!;
    const failed = decide({ type: 'fail', error, usage }, state);
    expect(failed).toEqual([{ type: 'run.failed', data: { error, usage } }]);
    expect(fold(recorded([queued(), ...failed]), 'x')!.usage).toEqual(usage);
    const cancelled = decide({ type: 'cancel', reason: null, providerCleanupError: null, usage }, state);
    expect(cancelled).toEqual([{ type: 'run.cancelled', data: { reason: null, providerCleanupError: null, usage } }]);
    // Whoever ends a run without its session knows no usage: null.
    expect(decide({ type: 'fail', error }, state)[0].data).toEqual({ error, usage: null });
  });

  it('an old terminal event without usage folds to null', () => {
    const old = recorded([queued(), { type: 'run.cancelled', data: { reason: 'r', providerCleanupError: null } }]);
    expect(fold(old, 'x')!.usage).toBeNull();
  });

  it('run.started names the model only when the provider has one', () => {
    const state = fold(recorded([queued()]), 'x')!;
    expect(decide({ type: 'start' }, state)).toEqual([{ type: 'run.started', data: { provider: 'scripted' } }]);
    expect(decide({ type: 'start', model: 'gpt-x' }, state)).toEqual([{ type: 'run.started', data: { provider: 'scripted', model: 'gpt-x' } }]);
  });
});
