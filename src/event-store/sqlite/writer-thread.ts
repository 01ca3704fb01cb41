import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { StoreUnavailableError, WrongExpectedRevisionError } from '../event-store';
import { GroupCommit } from './group-commit';
import type { WriterData, WriterFailure, WriterOutcome, WriterRequest, WriterResponse } from './writer-messages';

/**
 * The SQLite writer thread (docs/design.md#the-sqlite-writer-thread): owns the one write
 * connection and its group commit, so a commit's fsync blocks this thread, never the event loop.
 * Appends arrive already encoded; outcomes go back in one message per commit.
 */
const { file, synchronous, windowMs } = workerData as WriterData;
const port = parentPort!;
const db = new Database(file, { timeout: 1000 });
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${synchronous}`);

const commits = new GroupCommit(db, () => undefined, windowMs);
let outcomes: WriterOutcome[] = [];
let sizes: { appends: number; events: number }[] = [];
let crashAfterCommit = false;

function failureOf(error: Error): WriterFailure {
  if (error instanceof WrongExpectedRevisionError) return { kind: 'conflict', streamId: error.streamId, expected: error.expected, actual: error.actual };
  if (error instanceof StoreUnavailableError) {
    const cause = error.cause as { code?: string; message?: string } | undefined;
    return { kind: 'unavailable', message: error.message, code: cause?.code, causeMessage: cause?.message ?? error.message };
  }
  return { kind: 'error', message: error.message };
}

/** Every callback of one commit runs inside it: the outcomes leave together once it is over. */
function settle(outcome: WriterOutcome): void {
  if (outcomes.length === 0) queueMicrotask(send);
  outcomes.push(outcome);
}

function send(): void {
  if (outcomes.length === 0) return;
  // process.exit in a worker ends the thread only: as if it died between commit and answer.
  if (crashAfterCommit) process.exit(1);
  const message: WriterResponse = { kind: 'settled', outcomes, commits: sizes };
  outcomes = [];
  sizes = [];
  port.postMessage(message);
}

commits.onCommit = (appends, events) => void sizes.push({ appends, events });

port.on('message', (request: WriterRequest) => {
  switch (request.kind) {
    case 'appends':
      for (const { id, streamId, expected, rows } of request.appends) {
        commits.enqueue({
          streamId,
          expected,
          rows,
          resolve: (result) => settle({ id, result }),
          reject: (error) => settle({ id, failure: failureOf(error) }),
        });
      }
      return;
    case 'pragma':
      db.pragma(request.sql);
      return;
    case 'crash-after-commit':
      crashAfterCommit = true;
      return;
    case 'close':
      commits.flush();
      send();
      db.close();
      port.postMessage({ kind: 'closed' } satisfies WriterResponse);
      port.close();
  }
});

port.postMessage({ kind: 'ready' } satisfies WriterResponse);
