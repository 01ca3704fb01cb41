import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { WriterAnswers } from '../writer-answers';
import type { WriterRequest, WriterResponse } from '../writer-messages';
import { GroupCommit } from './group-commit';

/** What the SQLite writer thread is started with. */
export interface SqliteWriterData {
  file: string;
  synchronous: 'FULL' | 'NORMAL';
  windowMs: number;
}

/**
 * The SQLite writer thread (docs/design.md#the-sqlite-writer-thread): owns the one write
 * connection and its group commit, so a commit's fsync blocks this thread, never the event loop.
 * Appends arrive already encoded; outcomes go back in one message per commit.
 */
const { file, synchronous, windowMs } = workerData as SqliteWriterData;
const port = parentPort!;
const db = new Database(file, { timeout: 1000 });
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${synchronous}`);

// Nothing else runs on this thread, so it may sleep through a commit window (group-commit.ts).
const sleeper = new Int32Array(new SharedArrayBuffer(4));
const commits = new GroupCommit(
  db,
  () => undefined,
  windowMs,
  (ms) => void Atomics.wait(sleeper, 0, 0, ms),
);
const answers = new WriterAnswers(port);
commits.onCommit = (appends, events) => answers.committed(appends, events);

port.on('message', (request: WriterRequest) => {
  switch (request.kind) {
    case 'appends':
      for (const { id, streamId, expected, rows } of request.appends) {
        commits.enqueue({ streamId, expected, rows, resolve: answers.resolved(id), reject: answers.rejected(id) });
      }
      return;
    case 'pragma':
      db.pragma(request.sql);
      return;
    case 'crash-after-commit':
      answers.crashAfterCommit = true;
      return;
    case 'close':
      commits.flush();
      answers.send();
      db.close();
      port.postMessage({ kind: 'closed' } satisfies WriterResponse);
      port.close();
  }
});

port.postMessage({ kind: 'ready' } satisfies WriterResponse);
