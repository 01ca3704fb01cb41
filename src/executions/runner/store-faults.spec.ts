import { DEFAULT_VOLUME_LIMITS } from '../../config/volume-limits';
import { Logger } from '@nestjs/common';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { injectAppendFaults, sqliteOutage } from '../../../test/support/store-faults';
import { StoredEvent } from '../../event-store/event-store';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { startReadModels } from '../../../test/support/read-models';
import { Provider, ProviderRun } from '../../providers/provider';
import { ProviderRegistry } from '../../providers/provider-registry';
import { executionStream, LoadedExecution } from '../execution-stream';
import { ExecutionRunner } from './execution-runner';
import { ExecutionSession } from './execution-session';
import { InstanceLiveness } from '../instance-liveness';
import { InterruptedExecutions } from './interrupted-executions';
import { queueExecution } from '../../../test/support/queued-execution';

const silent = new Logger('store-faults.spec');
silent.warn = () => undefined;
silent.error = () => undefined;
silent.log = () => undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Emits `count` numbered deltas, pausing now and then so an outage can land mid-stream. */
class CountingProvider implements Provider {
  readonly manifest = { id: 'counting', displayName: 'Counting', capabilities: { cancellation: 'native' as const } };
  cleanups = 0;
  constructor(
    private readonly count: number,
    private readonly pauseEvery = 50,
  ) {}
  validateConfig(): null {
    return null;
  }
  async run(run: ProviderRun) {
    let text = '';
    for (let i = 0; i < this.count; i++) {
      const delta = `d${i} `;
      await run.emitText(delta);
      text += delta;
      if (i % this.pauseEvery === this.pauseEvery - 1) await sleep(1);
    }
    return { text, usage: null };
  }
  async cleanup(): Promise<void> {
    this.cleanups += 1;
  }
}

const deltasOf = (events: StoredEvent[]) => events.filter((e) => e.type === 'output.text.delta').map((e) => (e.data as { delta: string }).delta);
const script = (n: number) => Array.from({ length: n }, (_, i) => `d${i} `);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('the runner rides out store faults (real SQLite underneath)', () => {
  let store: SqliteEventStore;
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'runledger-faults-'));
    store = SqliteEventStore.open(join(dir, 'events.db'));
  });
  afterEach(() => store.close());

  /** `byEarlierProcess`: queued by another instance id, as a process that has since stopped. */
  const queue = (byEarlierProcess = false) =>
    queueExecution(store, { provider: 'counting', tenantId: 't', instanceId: byEarlierProcess ? 'an-earlier-process' : undefined });

  const session = (loaded: LoadedExecution, provider: Provider, storeRetryMs = 30_000) =>
    new ExecutionSession(store, loaded, provider, { storeRetryMs, history: async () => [] }, silent);

  const read = (loaded: LoadedExecution) => store.readStream(executionStream(loaded.state.id));

  it('lost acknowledgements and refusals mid-stream: every delta once, in order, and the run completes', async () => {
    let appends = 0;
    const restore = injectAppendFaults(store, (streamId) => {
      if (!streamId.startsWith('execution-')) return null;
      appends += 1;
      // Every 3rd append is stored but reported failed; every 7th is refused outright.
      return appends % 3 === 0 ? 'lose-ack' : appends % 7 === 0 ? 'refuse' : null;
    });
    const provider = new CountingProvider(2000);
    const loaded = await queue();
    await session(loaded, provider).finished;
    restore();

    const events = await read(loaded);
    expect(appends).toBeGreaterThan(20);
    expect(events.map((e) => e.revision)).toEqual(events.map((_, i) => i));
    expect(deltasOf(events)).toEqual(script(2000));
    expect(events.slice(-2).map((e) => e.type)).toEqual(['output.text.done', 'run.completed']);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  it('a real SQLITE_FULL outage shorter than the bound: no hole, no duplicate, the run completes', async () => {
    const outage = sqliteOutage(store);
    const provider = new CountingProvider(3000, 20);
    const loaded = await queue();
    const running = session(loaded, provider);
    await waitFor('some deltas', async () => ((await read(loaded)).length > 300 ? true : undefined));
    outage.begin();
    await sleep(1500);
    const duringOutage = (await read(loaded)).length;
    outage.end();
    await running.finished;

    const events = await read(loaded);
    expect(duringOutage).toBeLessThan(3000);
    expect(deltasOf(events)).toEqual(script(3000));
    expect((events.at(-2)!.data as { text: string }).text).toBe(script(3000).join(''));
    expect(events.at(-1)!.type).toBe('run.completed');
  });

  it('an outage past STORE_RETRY_MS: the provider is stopped, cleanup runs once, run.failed follows once the store is back', async () => {
    const outage = sqliteOutage(store, 'read-only');
    const provider = new CountingProvider(100_000, 20);
    const loaded = await queue();
    const running = session(loaded, provider, 300);
    await waitFor('some deltas', async () => ((await read(loaded)).length > 200 ? true : undefined));
    outage.begin();
    await waitFor('the cleanup', () => (provider.cleanups > 0 ? true : undefined));
    await sleep(500);
    const stuck = await read(loaded);
    expect(stuck.at(-1)!.type).toBe('output.text.delta');
    outage.end();
    await running.finished;

    const events = await read(loaded);
    expect(provider.cleanups).toBe(1);
    const last = events.at(-1)!;
    expect(last.type).toBe('run.failed');
    expect((last.data as { error: { code: string; message: string } }).error.code).toBe('RUNTIME_INTERRUPTED');
    expect((last.data as { error: { message: string } }).error.message).toMatch(/event store/);
    // What was stored is the script's beginning, in order, with nothing after the end.
    const deltas = deltasOf(events);
    expect(deltas).toEqual(script(deltas.length));
    expect(events.filter((e) => e.type.startsWith('run.') && e.type !== 'run.queued' && e.type !== 'run.started')).toHaveLength(1);
  });

  it('a cancel during an outage: one operation however often it is asked, cleanup once, run.cancelled once the store is back', async () => {
    // The caller's 503 while the store refuses is the cancel handler's (test/faults/store-outage.e2e-spec.ts).
    const outage = sqliteOutage(store, 'read-only');
    const provider = new CountingProvider(100_000, 20);
    const loaded = await queue();
    const running = session(loaded, provider);
    await waitFor('some deltas', async () => ((await read(loaded)).length > 200 ? true : undefined));
    outage.begin();
    const cancels = [running.cancel('stop'), running.cancel('again')];
    await waitFor('the cleanup', () => (provider.cleanups > 0 ? true : undefined));
    outage.end();
    await Promise.all([...cancels, running.cancel('after')]);
    await running.finished;

    const events = await read(loaded);
    expect(provider.cleanups).toBe(1);
    expect(events.at(-1)!.type).toBe('run.cancelled');
    expect(events.at(-1)!.data).toEqual({ reason: 'stop', providerCleanupError: null, usage: null });
    expect(events.filter((e) => e.type === 'run.cancelled')).toHaveLength(1);
    const deltas = deltasOf(events);
    expect(deltas).toEqual(script(deltas.length));
  });

  it('halting during an outage stops retrying at once and appends nothing more', async () => {
    const outage = sqliteOutage(store, 'read-only');
    const provider = new CountingProvider(100_000, 20);
    const loaded = await queue();
    const running = session(loaded, provider);
    await waitFor('some deltas', async () => ((await read(loaded)).length > 200 ? true : undefined));
    outage.begin();
    await sleep(300);
    const started = Date.now();
    await running.halt();
    expect(Date.now() - started).toBeLessThan(2000);
    const before = (await read(loaded)).length;
    outage.end();
    await sleep(200);
    expect((await read(loaded)).length).toBe(before);
    expect(provider.cleanups).toBe(0);
  });

  it('a start while the store refuses writes does not wait for the sweep, which ends the left-over runs once it can', async () => {
    const leftOver = [await queue(true), await queue(true)];
    const readModels = startReadModels(store, dir);
    const registry = new ProviderRegistry();
    const runner = new ExecutionRunner(store, registry, readModels.history, { storeRetryMs: 30_000, limits: DEFAULT_VOLUME_LIMITS });
    let refusing = true;
    const restore = injectAppendFaults(store, () => (refusing ? 'refuse' : null));
    const timing = { heartbeatIntervalMs: 1000, heartbeatLapseMs: 5000 };
    const sweep = new InterruptedExecutions(store, readModels.inFlight, runner, new InstanceLiveness(store, timing), timing);
    await sweep.onApplicationBootstrap();
    expect(sweep.pending).toBe(true);
    refusing = false;
    await waitFor('the sweep', () => (sweep.pending ? undefined : true));
    sweep.beforeApplicationShutdown();
    restore();
    await readModels.close();
    for (const loaded of leftOver) {
      const last = (await read(loaded)).at(-1)!;
      expect(last.type).toBe('run.failed');
      expect((last.data as { error: { code: string } }).error.code).toBe('RUNTIME_INTERRUPTED');
    }
  });
});
