import { DEFAULT_VOLUME_LIMITS } from '../../config/volume-limits';
import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { startReadModels } from '../../../test/support/read-models';
import { Provider, ProviderRun } from '../../providers/provider';
import { ProviderRegistry } from '../../providers/provider-registry';
import { CancelExecutionCommand } from '../commands/cancel-execution.command';
import { CancelExecutionHandler } from '../commands/cancel-execution.handler';
import { executionStream, loadExecution } from '../execution-stream';
import { ExecutionRunner } from './execution-runner';
import { ExecutionSession } from './execution-session';
import { InstanceLiveness } from '../instance-liveness';
import { OwnerFollower } from './owner-follower';
import { queueExecution } from '../../../test/support/queued-execution';

const TENANT = 'default';
const silent = new Logger('cancel-once.spec');
silent.warn = () => undefined;
silent.error = () => undefined;

/** A promise the test settles by hand: no clocks decide these tests. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A provider that emits once, then waits for the abort; after the abort it tries to emit again
 * (which the runner must drop). Its cleanup counts its calls and finishes when the test says so.
 */
class CountingProvider implements Provider {
  readonly manifest = { id: 'counting', displayName: 'Counting', capabilities: { cancellation: 'native' as const } };
  cleanupCalls = 0;
  runCalls = 0;
  readonly cleanupEntered = gate();
  readonly cleanupRelease = gate();
  readonly lateEmit = gate<unknown>();
  readonly emitted = gate();

  validateConfig(): string | null {
    return null;
  }

  async run(run: ProviderRun) {
    this.runCalls += 1;
    await run.emitText('before ');
    this.emitted.open();
    await new Promise((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true })).catch(async (error) => {
      // A provider that ignores the abort and keeps producing: its output must be discarded.
      this.lateEmit.open(
        await run.emitText('after cancel').then(
          () => 'appended',
          (e) => e,
        ),
      );
      throw error;
    });
    return { text: 'before ', usage: null };
  }

  async cleanup(): Promise<void> {
    this.cleanupCalls += 1;
    this.cleanupEntered.open();
    await this.cleanupRelease.promise;
    throw new Error('counting cleanup failed');
  }
}

describe('cancel runs the provider cleanup once, over a real SQLite event store', () => {
  let store: SqliteEventStore;
  let provider: CountingProvider;
  beforeEach(() => {
    store = SqliteEventStore.open(join(mkdtempSync(join(tmpdir(), 'runledger-unit-')), 'events.db'));
    provider = new CountingProvider();
  });
  afterEach(() => store.close());

  const queue = () => queueExecution(store, { provider: 'counting', tenantId: TENANT });

  const typesIn = async (id: string) => (await store.readStream(executionStream(id))).map((e) => e.type);

  it('20 concurrent session.cancel() calls: one cleanup, one run.cancelled, provider output after it dropped', async () => {
    const loaded = await queue();
    const session = new ExecutionSession(store, loaded, provider, { storeRetryMs: 30_000, history: async () => [] }, silent);
    await provider.emitted.promise;

    const cancels = Array.from({ length: 20 }, (_, i) => session.cancel(`reason ${i}`));
    await provider.cleanupEntered.promise;
    provider.cleanupRelease.open();
    await Promise.all(cancels);
    await session.finished;

    expect(provider.cleanupCalls).toBe(1);
    expect(await provider.lateEmit.promise).toBeInstanceOf(Error);
    expect(await typesIn(loaded.state.id)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.cancelled']);
    const state = (await loadExecution(store, loaded.state.id))!.state;
    expect(state.cancellation).toEqual({ reason: 'reason 0', providerCleanupError: 'counting cleanup failed' });
  });

  it('a cancel in the same turn as the launch (run.started not yet stored): one cleanup, the provider never starts', async () => {
    const loaded = await queue();
    const session = new ExecutionSession(store, loaded, provider, { storeRetryMs: 30_000, history: async () => [] }, silent);
    const cancels = Array.from({ length: 5 }, () => session.cancel('early'));
    await provider.cleanupEntered.promise;
    provider.cleanupRelease.open();
    await Promise.all(cancels);
    await session.finished;

    expect(provider.cleanupCalls).toBe(1);
    const types = await typesIn(loaded.state.id);
    expect(types[types.length - 1]).toBe('run.cancelled');
    expect(types.filter((t) => t === 'run.cancelled')).toHaveLength(1);
    expect(types).not.toContain('output.text.delta');
    expect(provider.runCalls).toBe(0);
  });

  it('cancels through the handler that arrive while the cleanup runs join it instead of cancelling again', async () => {
    const providers = new ProviderRegistry();
    providers.register(provider);
    const readModels = startReadModels(store, mkdtempSync(join(tmpdir(), 'runledger-unit-')));
    const runner = new ExecutionRunner(store, providers, readModels.history, { storeRetryMs: 30_000, limits: DEFAULT_VOLUME_LIMITS });
    // The handler only appends the request; the runner hears it from the log, as in the app.
    const follower = new OwnerFollower(store, runner);
    await follower.onApplicationBootstrap();
    const handler = new CancelExecutionHandler(store, new InstanceLiveness(store, { heartbeatIntervalMs: 1000, heartbeatLapseMs: 5000 }), {
      storeRetryMs: 30_000,
    });
    const loaded = await queue();
    runner.launch(loaded);
    await provider.emitted.promise;

    const first = handler.execute(new CancelExecutionCommand(TENANT, loaded.state.id, 'first'));
    await provider.cleanupEntered.promise;
    // By now the provider has been aborted and its run has returned; only the cleanup is pending.
    await provider.lateEmit.promise;
    await new Promise((r) => setImmediate(r));
    const later = Array.from({ length: 19 }, (_, i) => handler.execute(new CancelExecutionCommand(TENANT, loaded.state.id, `later ${i}`)));
    // Let the later cancels reach the store (group commit flushes at setImmediate) before the
    // cleanup ends: one that did not join the first would have appended its own run.cancelled.
    for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
    provider.cleanupRelease.open();
    const states = await Promise.all([first, ...later]);

    expect(provider.cleanupCalls).toBe(1);
    for (const state of states) {
      expect(state).toEqual(states[0]);
      expect(state.cancellation).toEqual({ reason: 'first', providerCleanupError: 'counting cleanup failed' });
    }
    expect(await typesIn(loaded.state.id)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.cancelled']);
    // Once the operation has settled, a further cancel answers from the stored state, no cleanup.
    const again = await handler.execute(new CancelExecutionCommand(TENANT, loaded.state.id, 'again'));
    expect(again).toEqual(states[0]);
    expect(provider.cleanupCalls).toBe(1);
    follower.beforeApplicationShutdown();
    await readModels.close();
  });
});
