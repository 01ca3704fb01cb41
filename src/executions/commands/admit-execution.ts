import { Admission, ConcurrencyPolicy, OpenTurn, decideAdmission, predecessorsOf } from '../../conversations/domain/concurrency';
import { appendAdmission, readTurns } from '../../conversations/turns-stream';
import { EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { isTerminalEvent } from '../domain/execution-events';
import { executionStream } from '../execution-stream';
import { retryDelay } from '../../common/backoff';

/** How long an admission waits for an earlier admitted start's run.queued (docs/design.md#concurrency). */
export const ADMISSION_GRACE_MS = 10_000;

export interface AdmitRequest {
  tenantId: string;
  conversationId: string;
  executionId: string;
  concurrency: ConcurrencyPolicy;
}

/**
 * Admits an execution into its conversation (docs/design.md#concurrency): reads the turns, asks
 * each open execution's stream whether it has ended, lets the pure decider choose, and appends
 * the admission at the revision read. A conflict is a racing start: read and decide again. An
 * execution admitted already (an idempotent retry) is answered from the turns, nothing appended.
 */
export async function admitExecution(store: EventStore, request: AdmitRequest): Promise<Admission> {
  const began = Date.now();
  for (let waits = 1; ;) {
    const turns = await readTurns(store, request.conversationId);
    const mine = turns.state.open.find((turn) => turn.executionId === request.executionId);
    const { ended, absent } = await endsOf(store, turns.state.open);
    if (mine) return readmitted(mine, predecessorsOf(turns.state, mine.executionId, ended) ?? [], turns.state.open);
    // An admitted start not yet queued is about to be: waiting for its run.queued keeps the
    // conversation's list (by run.queued) in the order its turns were decided. One that never
    // comes (its process died in between) stops holding the others after ADMISSION_GRACE_MS.
    // A parallel start waits for no one, and leaves such a start open for the next decision.
    if (request.concurrency !== 'parallel' && absent.length > 0) {
      if (Date.now() - began < ADMISSION_GRACE_MS) {
        // Its run.queued is one append away: a few ms, growing to 50 while it does not come.
        await retryDelay(Math.min(5 * waits++, 50));
        continue;
      }
      for (const id of absent) ended.add(id);
    }
    const admission = decideAdmission(request.conversationId, { ...request, ended }, turns.state);
    try {
      await appendAdmission(store, request.tenantId, request.conversationId, admission, turns.revision);
      return admission;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
}

function readmitted(turn: OpenTurn, earlier: string[], open: OpenTurn[]): Admission {
  const waits = turn.concurrency === 'enqueue' || turn.concurrency === 'interrupt';
  return { ...turn, open, waitsFor: waits ? earlier : [], interrupts: turn.concurrency === 'interrupt' ? earlier : [] };
}

/** Which of these executions have ended: a terminal event is the last of its stream, and final. */
export async function endedAmong(store: EventStore, turns: readonly { executionId: string }[]): Promise<Set<string>> {
  return (await endsOf(store, turns)).ended;
}

async function endsOf(store: EventStore, turns: readonly { executionId: string }[]): Promise<{ ended: Set<string>; absent: string[] }> {
  const ends = await Promise.all(turns.map(({ executionId }) => endOf(store, executionId)));
  return {
    ended: new Set(turns.filter((_, i) => ends[i] === 'ended').map((t) => t.executionId)),
    absent: turns.filter((_, i) => ends[i] === 'absent').map((t) => t.executionId),
  };
}

async function endOf(store: EventStore, executionId: string): Promise<'ended' | 'open' | 'absent'> {
  const stream = executionStream(executionId);
  const head = await store.streamHead(stream);
  // Admitted but not yet queued: a start on its way (docs/design.md#concurrency).
  if (head === null) return 'absent';
  const [last] = await store.readStream(stream, { after: head - 1, limit: 1 });
  return last !== undefined && isTerminalEvent(last.type) ? 'ended' : 'open';
}
