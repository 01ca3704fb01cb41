import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queueExecution } from '../../../test/support/queued-execution';
import { DEFAULT_VOLUME_LIMITS } from '../../config/volume-limits';
import { SqliteEventStore } from '../../event-store/sqlite/sqlite-event-store';
import { startReadModels } from '../../../test/support/read-models';
import { ProviderRegistry } from '../../providers/provider-registry';
import { cancelRequestStream } from '../cancel-requests';
import { CancelExecutionCommand } from '../commands/cancel-execution.command';
import { CancelExecutionHandler } from '../commands/cancel-execution.handler';
import { executionStream } from '../execution-stream';
import { InstanceLiveness } from '../instance-liveness';
import { ExecutionRunner } from './execution-runner';
import { OwnerFollower } from './owner-follower';

describe('the owner follower, over a real SQLite event store', () => {
  it('a cancel of a run this instance owns but no session drives is ended by the events alone, through the log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runledger-unit-'));
    const store = SqliteEventStore.open(join(dir, 'events.db'));
    const readModels = startReadModels(store, dir);
    const runner = new ExecutionRunner(store, new ProviderRegistry(), readModels.history, { storeRetryMs: 30_000, limits: DEFAULT_VOLUME_LIMITS });
    const follower = new OwnerFollower(store, runner);
    const timing = { heartbeatIntervalMs: 1000, heartbeatLapseMs: 5000 };
    const handler = new CancelExecutionHandler(store, new InstanceLiveness(store, timing), { storeRetryMs: 30_000 });
    try {
      await follower.onApplicationBootstrap();
      // Queued by this instance (its run.queued names it the owner), but never launched here.
      const { state } = await queueExecution(store, { provider: 'absent' });
      const cancelled = await handler.execute(new CancelExecutionCommand('default', state.id, 'orphan'));

      expect(cancelled).toMatchObject({ status: 'cancelled', cancellation: { reason: 'orphan', providerCleanupError: null } });
      expect((await store.readStream(cancelRequestStream(state.id))).map((e) => e.data.reason)).toEqual(['orphan']);
      expect((await store.readStream(executionStream(state.id))).map((e) => e.type)).toEqual(['run.queued', 'run.cancelled']);
    } finally {
      follower.beforeApplicationShutdown();
      handler.beforeApplicationShutdown();
      await readModels.close();
      await store.close();
    }
  });
});
