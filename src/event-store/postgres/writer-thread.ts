import { Pool, PoolConfig } from 'pg';
import { parentPort, workerData } from 'node:worker_threads';
import { WriterAnswers } from '../writer-answers';
import type { WriterRequest, WriterResponse } from '../writer-messages';
import { GroupCommit } from './group-commit';

/** What the PostgreSQL writer thread is started with. */
export interface PostgresWriterData {
  config: PoolConfig;
  xidBase: bigint;
}

/**
 * The PostgreSQL writer thread (docs/design.md#the-postgresql-writer-thread): owns the append
 * connection and its group commit, so a commit's round trips are answered by this thread's idle
 * loop, not after whatever the event loop is busy with. Appends arrive encoded and checked;
 * outcomes go back in one message per commit.
 */
const { config, xidBase } = workerData as PostgresWriterData;
const port = parentPort!;
// One connection: the group commit runs one transaction at a time.
const pool = new Pool({ ...config, max: 1 });
pool.on('error', () => undefined);
const answers = new WriterAnswers(port);
// The store counts each commit's size from the outcomes it is told of (postgres-event-store.ts).
const commits = new GroupCommit(pool, xidBase, () => undefined);

port.on('message', (request: WriterRequest) => {
  switch (request.kind) {
    case 'appends':
      for (const { id, streamId, expected, rows } of request.appends) {
        const bytes = rows.reduce((n, row) => n + row.data.length + row.metadata.length, 0);
        commits.enqueue({ streamId, expected, rows, bytes, resolve: answers.resolved(id), reject: answers.rejected(id) });
      }
      return;
    case 'crash-after-commit':
      answers.crashAfterCommit = true;
      return;
    case 'pragma':
      // SQLite's fault hook; PostgresEventStore never sends it.
      return;
    case 'close':
      void commits
        .drain()
        .then(() => pool.end())
        .catch(() => undefined)
        .then(() => {
          answers.send();
          port.postMessage({ kind: 'closed' } satisfies WriterResponse);
          port.close();
        });
  }
});

port.postMessage({ kind: 'ready' } satisfies WriterResponse);
