import { EventStore } from '../event-store/event-store';
import { PROJECTED_STREAM_PREFIXES } from './projection';
import { Projector } from './projector';

/** Lag is counted up to here; a projection further behind reports this many. */
export const LAG_COUNT_CAP = 10_000;

export interface ProjectionStatus {
  name: string;
  position: number;
  /** Events of the projected streams stored after `position` (0 when caught up). */
  lag: number;
}

/**
 * Where each projection stands and how many events it has still to apply. The readiness probe
 * and /metrics (both open to anyone) call this, so the events are counted by the store, never
 * read: the answer costs the same however far behind the projections are.
 */
export async function projectionStatus(projector: Pick<Projector, 'positions'>, store: EventStore): Promise<ProjectionStatus[]> {
  // One snapshot: the projector moves on while the counts are awaited, and a position read after them would have no count.
  const positions = projector.positions;
  const lagAt = new Map<number, number>();
  for (const { position } of positions) {
    if (lagAt.has(position)) continue;
    lagAt.set(position, await store.countAll({ after: position, limit: LAG_COUNT_CAP, filter: { streamPrefixes: PROJECTED_STREAM_PREFIXES } }));
  }
  return positions.map(({ name, position }) => ({ name, position, lag: lagAt.get(position)! }));
}
