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

/** Where each projection stands and how many events it has still to apply. */
export async function projectionStatus(projector: Projector, store: EventStore): Promise<ProjectionStatus[]> {
  const lagAt = new Map<number, number>();
  for (const { position } of projector.positions) {
    if (lagAt.has(position)) continue;
    const behind = await store.readAll({ after: position, limit: LAG_COUNT_CAP, filter: { streamPrefixes: PROJECTED_STREAM_PREFIXES } });
    lagAt.set(position, behind.length);
  }
  return projector.positions.map(({ name, position }) => ({ name, position, lag: lagAt.get(position)! }));
}
