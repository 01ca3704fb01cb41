import type Database from 'better-sqlite3';
import { asStoreUnavailable } from '../event-store/sqlite-errors';
import { StoredEvent } from '../event-store/event-store';
import { ProcessorBatch } from '../event-store/processor';
import { Projection } from './projection';
import { ProjectionCatalog } from './projection-catalog';
import { ReadModelWriter } from './read-model-writer';

interface Bound {
  projection: Projection;
  apply: (events: StoredEvent[]) => void;
  position: number;
}

/**
 * Applies a batch to every projection in one SQLite transaction over the read-model database:
 * each projection's rows and its checkpoint together, so a crash never applies an event twice
 * nor skips one. The checkpoint is the last position *read* (the store's checkpoints cover
 * events no projection wants), so a restart resumes exactly there. Opening it creates missing
 * projections and rebuilds outdated ones (their stored version differs from the code's).
 */
export class ReadModelTransaction implements ReadModelWriter {
  readonly rebuilt: readonly string[];
  private readonly catalog: ProjectionCatalog;
  private readonly bound: Bound[];

  constructor(
    private readonly db: Database.Database,
    projections: readonly Projection[],
  ) {
    this.catalog = new ProjectionCatalog(db);
    this.rebuilt = this.catalog.prepare(projections);
    this.bound = projections.map((projection) => ({ projection, apply: projection.bind(db), position: this.catalog.checkpoint(projection.name) }));
  }

  get positions(): { name: string; position: number }[] {
    return this.bound.map((b) => ({ name: b.projection.name, position: b.position }));
  }

  /** Throws `StoreUnavailableError` when the read-model file refuses the transaction (nothing of it is kept). */
  apply({ events, position }: ProcessorBatch): void {
    try {
      this.db.transaction(() => {
        for (const bound of this.bound) {
          if (position <= bound.position) continue;
          const fresh = events.filter((event) => event.position > bound.position);
          if (fresh.length > 0) bound.apply(fresh);
          this.catalog.setCheckpoint(bound.projection.name, position);
        }
      })();
    } catch (error) {
      throw asStoreUnavailable(error, 'the read-model file');
    }
    for (const bound of this.bound) bound.position = Math.max(bound.position, position);
  }

  pragma(sql: string): void {
    this.db.pragma(sql);
  }
}
