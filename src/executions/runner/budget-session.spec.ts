import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { Provider, ProviderRun } from '../../providers/provider';
import { queueExecution } from '../../../test/support/queued-execution';
import { executionStream } from '../execution-stream';
import { ExecutionSession } from './execution-session';

const silent = new Logger('budget-session.spec');
silent.warn = () => undefined;
silent.error = () => undefined;

/**
 * Reports `reports` one after another (as a tool loop reports each upstream response), then
 * returns `outcome`; what a report rejects with is kept. Its cleanup counts its calls.
 */
class ReportingProvider implements Provider {
  readonly manifest = { id: 'reporting', displayName: 'Reporting', capabilities: {} };
  cleanupCalls = 0;
  reportsAccepted = 0;
  rejection: unknown = null;

  constructor(
    private readonly reports: { inputTokens: number; outputTokens: number }[],
    private readonly outcome: { inputTokens: number; outputTokens: number } | null = null,
  ) {}

  validateConfig(): string | null {
    return null;
  }

  async run(run: ProviderRun) {
    for (const report of this.reports) {
      try {
        await run.reportUsage(report);
        this.reportsAccepted += 1;
      } catch (error) {
        this.rejection = error;
        throw error;
      }
    }
    return { text: null, usage: this.outcome };
  }

  async cleanup(): Promise<void> {
    this.cleanupCalls += 1;
  }
}

describe('a session holds a run to its token budget (docs/api.md#usage-and-budgets)', () => {
  let store: SqliteEventStore;
  beforeEach(() => (store = SqliteEventStore.open(join(mkdtempSync(join(tmpdir(), 'runledger-unit-')), 'events.db'))));
  afterEach(() => store.close());

  const options = { storeRetryMs: 30_000, history: async () => [] };
  const eventsOf = async (id: string) => store.readStream(executionStream(id));

  it('the report that passes the budget stops the provider: cleanup once, run.failed BUDGET_EXCEEDED with what was spent', async () => {
    const provider = new ReportingProvider([
      { inputTokens: 4, outputTokens: 4 },
      { inputTokens: 1, outputTokens: 1 },
      { inputTokens: 1, outputTokens: 0 },
      { inputTokens: 100, outputTokens: 100 },
    ]);
    const loaded = await queueExecution(store, { provider: 'reporting', budget: { maxTotalTokens: 10 } });
    const session = new ExecutionSession(store, loaded, provider, options, silent);
    await session.finished;

    expect(provider.reportsAccepted).toBe(2);
    expect((provider.rejection as Error).name).toBe('ExecutionStoppedError');
    expect(provider.cleanupCalls).toBe(1);
    const events = await eventsOf(loaded.state.id);
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'run.failed']);
    expect(events[2].data).toEqual({
      error: { code: 'BUDGET_EXCEEDED', message: expect.stringContaining('11 tokens') },
      usage: { inputTokens: 6, outputTokens: 5 },
    });
  });

  it('exactly the budget completes, with the reports summed when the provider gives no total', async () => {
    const provider = new ReportingProvider([
      { inputTokens: 5, outputTokens: 0 },
      { inputTokens: 0, outputTokens: 5 },
    ]);
    const loaded = await queueExecution(store, { provider: 'reporting', budget: { maxTotalTokens: 10 } });
    await new ExecutionSession(store, loaded, provider, options, silent).finished;
    const events = await eventsOf(loaded.state.id);
    expect(events.at(-1)).toMatchObject({ type: 'run.completed', data: { usage: { inputTokens: 5, outputTokens: 5 } } });
    expect(provider.cleanupCalls).toBe(0);
  });

  it('a total given only at the end is held to the budget too', async () => {
    const provider = new ReportingProvider([], { inputTokens: 20, outputTokens: 1 });
    const loaded = await queueExecution(store, { provider: 'reporting', budget: { maxTotalTokens: 20 } });
    await new ExecutionSession(store, loaded, provider, options, silent).finished;
    const events = await eventsOf(loaded.state.id);
    expect(events.at(-1)).toMatchObject({ type: 'run.failed', data: { error: { code: 'BUDGET_EXCEEDED' }, usage: { inputTokens: 20, outputTokens: 1 } } });
  });

  it('without a budget, a cancel records what was reported before it', async () => {
    let reported!: () => void;
    const before = new Promise<void>((resolve) => (reported = resolve));
    const provider: Provider = {
      manifest: { id: 'reporting', displayName: 'Reporting', capabilities: {} },
      validateConfig: () => null,
      run: async (run) => {
        await run.reportUsage({ inputTokens: 3, outputTokens: 2 });
        reported();
        await new Promise((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true }));
        return { text: null, usage: null };
      },
      cleanup: async () => undefined,
    };
    const loaded = await queueExecution(store, { provider: 'reporting' });
    const session = new ExecutionSession(store, loaded, provider, options, silent);
    await before;
    await session.cancel('enough');
    await session.finished;
    const events = await eventsOf(loaded.state.id);
    expect(events.at(-1)).toMatchObject({ type: 'run.cancelled', data: { reason: 'enough', usage: { inputTokens: 3, outputTokens: 2 } } });
  });
});
