import { predecessorsOf } from '../../conversations/domain/concurrency';
import { readTurns } from '../../conversations/turns-stream';
import { EventStore } from '../../event-store/event-store';
import { endedAmong } from '../commands/admit-execution';
import { ExecutionState } from '../domain/execution-state';
import { WaitPlan } from './queued-starts';

/** A queued execution that starts only once earlier ones have ended (docs/api.md#concurrency). */
export const waitsBehindOthers = (state: ExecutionState): boolean =>
  state.status === 'queued' && (state.concurrency === 'enqueue' || state.concurrency === 'interrupt');

/**
 * What an adopted queued execution still waits for, from its conversation's turns: the executions
 * admitted before it that have not ended (an `interrupt` cancels them again; the first request's
 * reason stands).
 */
export async function waitPlanOf(store: EventStore, state: ExecutionState): Promise<WaitPlan> {
  const turns = await readTurns(store, state.conversationId);
  const ended = await endedAmong(store, turns.state.open);
  const waitsFor = predecessorsOf(turns.state, state.id, ended) ?? [];
  return { waitsFor, interrupts: state.concurrency === 'interrupt' ? waitsFor : [] };
}
