import type Database from 'better-sqlite3';
import type { StoredEvent } from '../event-store/event-store';

/**
 * One read model fed by the projector. Its rows live in the read-model database; the projector
 * writes them and the projection's checkpoint in one transaction, so a crash never applies an
 * event twice nor skips one. `apply` must still be idempotent (the same events applied twice give
 * the same rows), because a rebuild or a verify may replay what a live row already holds.
 */
export interface Projection {
  readonly name: string;
  /** Bump when the tables change: a stored version that differs drops them and rebuilds from the log. */
  readonly version: number;
  /** Creates its tables (the projector drops them first with `drop`). */
  create(db: Database.Database): void;
  /** The tables it owns, for drop, rebuild and verify. */
  readonly tables: readonly string[];
  /** Prepares its statements on `db`; returns the function that applies a batch inside a transaction. */
  bind(db: Database.Database): (events: StoredEvent[]) => void;
}

/** Every projection reads only the execution and conversation streams. */
export const PROJECTED_STREAM_PREFIXES = ['execution-', 'conversation-'] as const;

export const isProjectedStream = (streamId: string) => PROJECTED_STREAM_PREFIXES.some((p) => streamId.startsWith(p));
