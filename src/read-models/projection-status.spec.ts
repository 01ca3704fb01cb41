import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../event-store/sqlite/sqlite-event-store';
import { projectionStatus } from './projection-status';

const meta = { tenantId: 't', schemaVersion: 1, correlationId: null, causationId: null };

describe('projectionStatus', () => {
  let store: SqliteEventStore;
  beforeEach(() => {
    store = SqliteEventStore.open(join(mkdtempSync(join(tmpdir(), 'runledger-status-')), 'events.db'));
  });
  afterEach(() => store.close());

  it('counts the lag of the positions it read, even when the projector moves on while it counts', async () => {
    await store.append(
      'execution-a',
      [1, 2, 3].map(() => ({ type: 'run.queued', data: {}, metadata: meta })),
      'any',
    );
    let reads = 0;
    // A projector applying a batch between the status's reads: each read sees it one further on.
    const moving = {
      get positions() {
        reads++;
        return [{ name: 'executions', position: reads }];
      },
    };
    const [status] = await projectionStatus(moving, store);
    expect(status).toEqual({ name: 'executions', position: 1, lag: 2 });
  });
});
