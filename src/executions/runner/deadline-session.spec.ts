import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { Provider, ProviderRun } from '../../providers/provider';
import { queueExecution } from '../../../test/support/queued-execution';
import { decideAndAppend } from '../commands/decide-and-append';
import { executionStream, loadExecution } from '../execution-stream';
import { ExecutionSession } from './execution-session';

const silent = new Logger('deadline-session.spec');
silent.warn = () => undefined;
silent.error = () => undefined;

function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Waits on the abort (or asks one action), then finishes; its cleanup counts its calls and ends when the test says so. */
class WaitingProvider implements Provider {
  readonly manifest = { id: 'waiting', displayName: 'Waiting', capabilities: {} };
  cleanupCalls = 0;
  readonly cleanupEntered = gate();
  readonly cleanupRelease = gate();

  constructor(private readonly actionTimeoutMs?: number) {}

  validateConfig(): string | null {
    return null;
  }

  async run(run: ProviderRun) {
    if (this.actionTimeoutMs !== undefined) {
      await run.requireAction({ kind: 'approval', prompt: 'ok?', inputSchema: null, tool: null, timeoutMs: this.actionTimeoutMs });
      return { text: null, usage: null };
    }
    await new Promise((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true }));
    return { text: null, usage: null };
  }

  async cleanup(): Promise<void> {
    this.cleanupCalls += 1;
    this.cleanupEntered.open();
    await this.cleanupRelease.promise;
  }
}

describe('a session ends a run at its deadline through the one ending path (docs/api.md#deadlines)', () => {
  let store: SqliteEventStore;
  beforeEach(() => (store = SqliteEventStore.open(join(mkdtempSync(join(tmpdir(), 'runledger-unit-')), 'events.db'))));
  afterEach(() => store.close());

  const typesIn = async (id: string) => (await store.readStream(executionStream(id))).map((e) => e.type);
  const options = { storeRetryMs: 30_000, history: async () => [] };

  it('cancels racing the deadline join it: one cleanup, one terminal event', async () => {
    const provider = new WaitingProvider();
    const loaded = await queueExecution(store, { provider: 'waiting', timeouts: { timeoutMs: 50 } });
    const session = new ExecutionSession(store, loaded, provider, options, silent);
    await provider.cleanupEntered.promise;
    const cancels = Array.from({ length: 5 }, () => session.cancel('too late'));
    provider.cleanupRelease.open();
    await Promise.all(cancels);
    await session.finished;

    expect(provider.cleanupCalls).toBe(1);
    expect(await typesIn(loaded.state.id)).toEqual(['run.queued', 'run.started', 'run.failed']);
    expect((await loadExecution(store, loaded.state.id))!.state.error?.code).toBe('DEADLINE_EXCEEDED');
  });

  it('an answer stored before the expiry fires, not yet delivered: the expiry appends nothing and the run goes on', async () => {
    const provider = new WaitingProvider(200);
    const loaded = await queueExecution(store, { provider: 'waiting' });
    const session = new ExecutionSession(store, loaded, provider, options, silent);
    let waiting = await loadExecution(store, loaded.state.id);
    while (waiting!.state.actions.length === 0) {
      await sleep(5);
      waiting = await loadExecution(store, loaded.state.id);
    }
    const [action] = waiting!.state.actions;
    expect(action.expiresAt).toBeDefined();
    // The respond handler's append: the session hears of it only through the log, later.
    await decideAndAppend(store, waiting!, { type: 'respond', actionId: action.id, response: { decision: 'approve' } });
    await sleep(Math.max(0, Date.parse(action.expiresAt!) - Date.now()) + 100);
    expect(await typesIn(loaded.state.id)).toEqual(['run.queued', 'run.started', 'action.required', 'action.responded']);

    session.deliverAnswer(action.id, { decision: 'approve' });
    await session.finished;
    expect(provider.cleanupCalls).toBe(0);
    expect(await typesIn(loaded.state.id)).toEqual(['run.queued', 'run.started', 'action.required', 'action.responded', 'run.completed']);
  });

  it('an action left unanswered: run.failed ACTION_EXPIRED, then the provider is stopped and cleaned up once', async () => {
    const provider = new WaitingProvider(30);
    provider.cleanupRelease.open();
    const loaded = await queueExecution(store, { provider: 'waiting' });
    const session = new ExecutionSession(store, loaded, provider, options, silent);
    await session.finished;
    expect(provider.cleanupCalls).toBe(1);
    expect(await typesIn(loaded.state.id)).toEqual(['run.queued', 'run.started', 'action.required', 'run.failed']);
    const { state } = (await loadExecution(store, loaded.state.id))!;
    expect(state.error?.code).toBe('ACTION_EXPIRED');
    expect(state.actions.map((a) => a.status)).toEqual(['cancelled']);
  });
});
