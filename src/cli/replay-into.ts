import type Database from 'better-sqlite3';
import { EventStore } from '../event-store/event-store';
import { PROJECTED_STREAM_PREFIXES, Projection } from '../read-models/projection';
import { ProjectionCatalog } from '../read-models/projection-catalog';
import { withoutSupersededStreamed } from '../read-models/streamed-events';

/** Events applied per transaction: big enough that commits cost little, small enough to stay flat in memory. */
const PAGE = 5000;

export interface ReplayTarget {
  projection: Projection;
  /** Apply the events up to and including this global position, and not one beyond. */
  until: number;
}

/**
 * Feeds freshly reset projections from `readAll` (the projector's own filter, read through the
 * gateway so upcasters apply), each up to its own position: a live subscription could not stop
 * exactly there. Every page goes in one transaction with the checkpoints it covers, as the
 * projector writes them, using each projection's own `bind` apply.
 */
export async function replayInto(
  store: EventStore,
  db: Database.Database,
  targets: readonly ReplayTarget[],
  onProgress: (position: number) => void = () => {},
): Promise<void> {
  const catalog = new ProjectionCatalog(db);
  for (const { projection } of targets) catalog.reset(projection);
  const bound = targets.map((target) => ({ ...target, apply: target.projection.bind(db) }));
  const end = Math.max(0, ...targets.map((t) => t.until));
  let after = 0;
  while (after < end) {
    const page = await store.readAll({ after, limit: PAGE, filter: { streamPrefixes: PROJECTED_STREAM_PREFIXES } });
    // A short page has read everything stored, so the checkpoints reach their target.
    const reached = page.length < PAGE ? end : Math.min(end, page[page.length - 1].position);
    db.transaction(() => {
      for (const { projection, until, apply } of bound) {
        const events = withoutSupersededStreamed(page.filter((event) => event.position <= until));
        if (events.length > 0) apply(events);
        catalog.setCheckpoint(projection.name, Math.min(until, reached));
      }
    })();
    after = reached;
    onProgress(after);
  }
}
