import { ExecutionState } from '../../executions/domain/execution-state';

/**
 * An execution's state is `{ id, ...run.queued's data, ...what later events set }` (`evolve`).
 * The read model stores run.queued's data once, as its event stored it (`execution_requests`), and
 * in the row's `state` only the rest: the input and the config (up to ~1 MB each) are then neither
 * parsed nor serialized nor rewritten when the status changes.
 */

/** The state without each key that still holds run.queued's own value (one a later event replaced stays). */
export function withoutQueuedPart(state: ExecutionState, queued: Record<string, unknown>): Partial<ExecutionState> {
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) if (!(key in queued && queued[key] === value)) rest[key] = value;
  return rest as Partial<ExecutionState>;
}

/** The whole state again, in `evolve`'s key order: the id, run.queued's data, then the rest. */
export const withQueuedPart = (rest: Partial<ExecutionState>, queued: Record<string, unknown>): ExecutionState =>
  ({ id: rest.id, ...queued, ...rest }) as ExecutionState;
