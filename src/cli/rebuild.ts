import type Database from 'better-sqlite3';
import { EventStore } from '../event-store/event-store';
import { Projection } from '../read-models/projection';
import { ProjectionCatalog } from '../read-models/projection-catalog';
import { Projector } from '../read-models/projector';
import { ReadModelTransaction } from '../read-models/read-model-transaction';
import { CliError } from './cli';

/** How long the projector may refuse to move (a read-model file that cannot be written, a projector that died) before giving up. */
const STALL_MS = 30_000;
const TICK_MS = 200;

/**
 * Drops `projections` and replays the log into them with the server's own projector (rule 5:
 * one apply loop), from a live subscription, until it has applied the head read at the start.
 * The projector resumes from checkpoints, so a rebuild cut short simply continues at the next
 * start of the server.
 */
export async function rebuildProjections(
  store: EventStore,
  db: Database.Database,
  projections: readonly Projection[],
  onProgress: (position: number, head: number) => void = () => {},
): Promise<{ head: number }> {
  const catalog = new ProjectionCatalog(db);
  for (const projection of projections) catalog.reset(projection);
  const head = await store.headPosition();
  const projector = new Projector(store, new ReadModelTransaction(db, projections));
  projector.start();
  try {
    let last = projector.position;
    let movedAt = Date.now();
    while (projector.position < head) {
      // Resolves as soon as the head is reached; otherwise times out after one tick.
      await projector.waitFor(head, TICK_MS).catch(() => {});
      onProgress(projector.position, head);
      if (projector.position !== last) {
        last = projector.position;
        movedAt = Date.now();
      } else if (Date.now() - movedAt > STALL_MS) {
        const why = projector.problem?.message ?? 'no error reported (see the log above)';
        throw new CliError(`the rebuild stopped at position ${last} of ${head}: ${why}`);
      }
    }
  } finally {
    await projector.stop();
  }
  onProgress(head, head);
  return { head };
}
