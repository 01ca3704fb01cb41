import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { Provider, ProviderRun } from '../../providers/provider';
import { executionStream, loadExecution } from '../execution-stream';
import { ExecutionSession } from './execution-session';
import { queueExecution } from '../../../test/support/queued-execution';

const silent = new Logger('session-limits.spec');
silent.warn = () => undefined;
silent.error = () => undefined;

/** Emits what the test gives it, as fast as it may, then completes with their concatenation. */
class EmittingProvider implements Provider {
  readonly manifest = { id: 'emitting', displayName: 'Emitting', capabilities: {} };
  cleanupCalls = 0;
  emitsAfterRefusal = 0;
  constructor(private readonly deltas: string[]) {}

  validateConfig(): null {
    return null;
  }

  async run(run: ProviderRun) {
    let refused = false;
    for (const delta of this.deltas) {
      await run.emitText(delta).catch((error) => {
        if (refused) this.emitsAfterRefusal += 1;
        refused = true;
        throw error;
      });
    }
    return { text: this.deltas.join(''), usage: null };
  }

  async cleanup(): Promise<void> {
    this.cleanupCalls += 1;
  }
}

describe('an execution past its bounds ends LIMIT_EXCEEDED, over a real SQLite event store', () => {
  let store: SqliteEventStore;
  beforeEach(() => (store = SqliteEventStore.open(join(mkdtempSync(join(tmpdir(), 'runledger-unit-')), 'events.db'))));
  afterEach(() => store.close());

  const queue = () => queueExecution(store, { provider: 'emitting' });

  async function run(deltas: string[], limits: { maxEvents?: number; maxEventBytes?: number }) {
    const loaded = await queue();
    const provider = new EmittingProvider(deltas);
    const session = new ExecutionSession(store, loaded, provider, { storeRetryMs: 30_000, history: async () => [], ...limits }, silent);
    await session.finished;
    const events = await store.readStream(executionStream(loaded.state.id));
    return { events, state: (await loadExecution(store, loaded.state.id))!.state };
  }

  it('MAX_EVENTS_PER_EXECUTION: the stream stops at the bound, its deltas a prefix in order, one run.failed at the end', async () => {
    const deltas = Array.from({ length: 5000 }, (_, i) => `${i} `);
    const { events, state } = await run(deltas, { maxEvents: 100 });
    expect(events.length).toBeLessThanOrEqual(100);
    expect(events.at(-1)!.type).toBe('run.failed');
    expect(events.filter((e) => e.type.startsWith('run.') && e.type !== 'run.queued' && e.type !== 'run.started')).toHaveLength(1);
    expect(state.error).toEqual({ code: 'LIMIT_EXCEEDED', message: expect.stringContaining('MAX_EVENTS_PER_EXECUTION') });
    const emitted = events.filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta);
    expect(emitted).toEqual(deltas.slice(0, emitted.length));
    expect(emitted.length).toBeGreaterThanOrEqual(90);
  });

  it('MAX_EVENT_BYTES: an oversized delta is never stored; the run ends LIMIT_EXCEEDED after what came before', async () => {
    const { events, state } = await run(['small ', 'x'.repeat(5000), 'never'], { maxEventBytes: 4096 });
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.failed']);
    expect(state.error).toEqual({ code: 'LIMIT_EXCEEDED', message: expect.stringMatching(/output.text.delta event is \d+ bytes.*MAX_EVENT_BYTES/) });
  });

  it('MAX_EVENT_BYTES: an answer whose output.text.done would be too large fails instead of completing', async () => {
    const deltas = Array.from({ length: 10 }, () => 'y'.repeat(1000));
    const { events, state } = await run(deltas, { maxEventBytes: 4096 });
    expect(events.filter((e) => e.type === 'output.text.delta')).toHaveLength(10);
    expect(events.at(-1)!.type).toBe('run.failed');
    expect(events.map((e) => e.type)).not.toContain('output.text.done');
    expect(state.error?.message).toMatch(/the output text is \d+ bytes/);
  });

  it('within the bounds nothing changes', async () => {
    const { events, state } = await run(['a ', 'b'], { maxEvents: 100, maxEventBytes: 4096 });
    expect(state.status).toBe('completed');
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'output.text.delta', 'output.text.done', 'run.completed']);
  });
});
