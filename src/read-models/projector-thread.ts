import { parentPort, workerData } from 'node:worker_threads';
import { StoreUnavailableError } from '../event-store/event-store';
import { PROJECTION_SETS } from './projection-sets';
import { ProjectorRequest, ProjectorResponse, ProjectorThreadData, fromWire } from './projector-messages';
import { connectReadModelFile } from './read-model-database';
import { ReadModelTransaction } from './read-model-transaction';

/**
 * The projector thread (docs/design.md#the-projector-thread): owns the write connection to one
 * read-model file and applies the batches the event loop's processor reads, so the projections'
 * SQL and their commits never hold the loop that serves HTTP and SSE. The event loop keeps its own
 * connection for queries.
 */
const { file, projections } = workerData as ProjectorThreadData;
const port = parentPort!;
const db = connectReadModelFile(file);
const transaction = new ReadModelTransaction(db, PROJECTION_SETS[projections]);
let crashAfterCommit = false;

const answer = (response: ProjectorResponse) => port.postMessage(response);

function apply(request: Extract<ProjectorRequest, { kind: 'apply' }>): void {
  try {
    transaction.apply({ events: request.events.map(fromWire), position: request.position });
  } catch (error) {
    const { message, stack } = error as Error;
    answer(error instanceof StoreUnavailableError ? { kind: 'refused', id: request.id, message } : { kind: 'failed', id: request.id, message, stack });
    return;
  }
  // process.exit in a worker ends the thread only: as if it died between commit and answer.
  if (crashAfterCommit) process.exit(1);
  answer({ kind: 'applied', id: request.id, positions: transaction.positions });
}

port.on('message', (request: ProjectorRequest) => {
  switch (request.kind) {
    case 'apply':
      return apply(request);
    case 'pragma':
      db.pragma(request.sql);
      return;
    case 'crash-after-commit':
      crashAfterCommit = true;
      return;
    case 'close':
      db.close();
      port.close();
  }
});

answer({ kind: 'ready', positions: transaction.positions, rebuilt: [...transaction.rebuilt] });
