import { DEFAULT_VOLUME_LIMITS } from '../../config/volume-limits';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { startReadModels } from '../../../test/support/read-models';
import { CapabilityLevel, HistoryEntry, Provider, ProviderRun } from '../../providers/provider';
import { ProviderRegistry } from '../../providers/provider-registry';
import { LoadedExecution, loadExecution } from '../execution-stream';
import { ExecutionRunner } from './execution-runner';
import { queueExecution } from '../../../test/support/queued-execution';

/** Records the history it is handed, then completes with a fixed text. */
class HistoryRecordingProvider implements Provider {
  readonly seen: HistoryEntry[][] = [];
  constructor(readonly manifest: { id: string; displayName: string; capabilities: Record<string, CapabilityLevel> }) {}
  validateConfig(): null {
    return null;
  }
  async run(run: ProviderRun) {
    this.seen.push(await run.history());
    return { text: `answer to ${run.input.text}`, usage: null };
  }
  async cleanup(): Promise<void> {}
}

describe('conversation history (docs/api.md#conversations) handed to providers by the runner, over a real SQLite store', () => {
  let store: SqliteEventStore;
  let registry: ProviderRegistry;
  let runner: ExecutionRunner;
  let readModels: ReturnType<typeof startReadModels>;
  const withHistory = new HistoryRecordingProvider({ id: 'remembers', displayName: 'R', capabilities: { 'conversation.history': 'native' } });
  const without = new HistoryRecordingProvider({ id: 'forgets', displayName: 'F', capabilities: {} });

  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), 'runledger-unit-'));
    store = SqliteEventStore.open(join(dir, 'events.db'));
    readModels = startReadModels(store, dir);
    registry = new ProviderRegistry();
    registry.register(withHistory);
    registry.register(without);
    runner = new ExecutionRunner(readModels.store, registry, readModels.history, { storeRetryMs: 30_000, limits: DEFAULT_VOLUME_LIMITS });
  });
  afterEach(async () => {
    await readModels.close();
    await store.close();
  });

  /** Queues an execution as the start handler does, runs it through the runner, waits for its end. */
  async function run(conversationId: string, provider: string, text: string): Promise<LoadedExecution> {
    const queued = await queueExecution(store, { provider, conversationId, text });
    runner.launch(queued);
    const { id } = queued.state;
    for (;;) {
      const loaded = (await loadExecution(store, id))!;
      if (loaded.state.status === 'completed') return loaded;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  it('gives a provider that advertises conversation.history the earlier completed turns, oldest first', async () => {
    await run('c-1', 'remembers', 'first');
    await run('c-1', 'forgets', 'second');
    await run('c-other', 'remembers', 'elsewhere');
    await run('c-1', 'remembers', 'third');
    expect(withHistory.seen.at(-1)).toEqual([
      { input: { text: 'first' }, outputText: 'answer to first' },
      { input: { text: 'second' }, outputText: 'answer to second' },
    ]);
    expect(withHistory.seen[0]).toEqual([]);
  });

  it('gives a provider without the capability no history', async () => {
    await run('c-2', 'remembers', 'first');
    await run('c-2', 'forgets', 'second');
    expect(without.seen.at(-1)).toEqual([]);
  });
});
