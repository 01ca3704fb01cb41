import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nowIso } from '../common/clock';
import { AppendResult } from '../event-store/event-store';
import { SqliteEventStore } from '../event-store/sqlite/sqlite-event-store';
import { decide } from '../executions/domain/execution-decide';
import { executionStream, toNewEvents } from '../executions/execution-stream';
import { queueExecution } from '../../test/support/queued-execution';
import { startReadModels } from '../../test/support/read-models';

/**
 * docs/design.md#read-models-and-consistency, over a real SQLite store and a real projector: a
 * read of the store can show an append before this process is told it landed (on PostgreSQL the
 * commit is visible to every connection before the writer thread answers). Here the adapter
 * commits at once and its answer reaches the gateway 300 ms later.
 */
describe('read-your-writes and an append whose answer is late', () => {
  let store: SqliteEventStore;
  let readModels: ReturnType<typeof startReadModels>;

  beforeEach(() => {
    const dir = mkdtempSync(join(tmpdir(), 'runledger-unit-'));
    store = SqliteEventStore.open(join(dir, 'events.db'));
    readModels = startReadModels(store, dir);
  });
  afterEach(async () => {
    await readModels.close();
    await store.close();
  });

  it('a query waits for it, and then reflects it', async () => {
    const queued = await queueExecution(readModels.store, { provider: 'scripted' });
    await readModels.consistency.caughtUp();
    const stream = executionStream(queued.state.id);
    const real = store.append.bind(store);
    store.append = async (...args) => {
      const result = await real(...args);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return result;
    };
    const order: string[] = [];
    const started = toNewEvents(queued.state.id, decide({ type: 'start' }, queued.state), { tenantId: 'default', occurredAt: nowIso() });
    const appended = readModels.store.append(stream, started, queued.revision).then((result: AppendResult) => {
      order.push('append answered');
      return result;
    });
    // The store shows run.started before the gateway is told it landed.
    while ((await store.readStream(stream)).length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await readModels.consistency.caughtUp();
    order.push('query answered');
    const { position } = await appended;
    expect(order).toEqual(['append answered', 'query answered']);
    expect(readModels.projector.position).toBeGreaterThanOrEqual(position);
    expect(readModels.executions.byId(queued.state.id)?.state.status).toBe('running');
  });
});
