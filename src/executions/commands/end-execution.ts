import { EventStore } from '../../event-store/event-store';
import { ExecutionCommand } from '../domain/execution-decide';
import { ExecutionStateError } from '../domain/execution-errors';
import { LoadedExecution } from '../execution-stream';
import { ONE_ATTEMPT, decideAndAppend } from './decide-and-append';
import { StoreRetry } from './store-retry';

/** The commands that end a run; `decide` alone says whether they still can. */
export type RunEnd = Extract<ExecutionCommand, { type: 'complete' | 'fail' | 'cancel' }>;

/** A refusal because the run has already ended: nothing to record, its state answers. */
export const hasEnded = (error: unknown): boolean => error instanceof ExecutionStateError && error.ended;

/**
 * Ends a run that no session here drives (docs/api.md#executions): the restart sweep, the reaper
 * of a lapsed owner's runs, a cancel of a run nobody runs. The expected revision picks one winner
 * among them and the session; true when this call recorded the end.
 */
export async function endExecution(store: EventStore, loaded: LoadedExecution, end: RunEnd, retry: StoreRetry = ONE_ATTEMPT): Promise<boolean> {
  try {
    const after = await decideAndAppend(store, loaded, end, retry);
    return after.revision > loaded.revision;
  } catch (error) {
    if (hasEnded(error)) return false;
    throw error;
  }
}
