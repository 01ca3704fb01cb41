import { Admission, ConcurrencyPolicy, OpenTurn, decideAdmission, predecessorsOf } from '../../conversations/domain/concurrency';
import { appendAdmission, readTurns } from '../../conversations/turns-stream';
import { EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { isTerminalEvent } from '../domain/execution-events';
import { executionStream } from '../execution-stream';

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
  for (;;) {
    const turns = await readTurns(store, request.conversationId);
    const ended = await endedAmong(store, turns.state.open);
    const mine = turns.state.open.find((turn) => turn.executionId === request.executionId);
    if (mine) return readmitted(mine, predecessorsOf(turns.state, mine.executionId, ended) ?? [], turns.state.open);
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
  const ended = await Promise.all(turns.map(({ executionId }) => hasEnded(store, executionId)));
  return new Set(turns.filter((_, i) => ended[i]).map((t) => t.executionId));
}

async function hasEnded(store: EventStore, executionId: string): Promise<boolean> {
  const stream = executionStream(executionId);
  const head = await store.streamHead(stream);
  // Admitted but not yet queued: a start on its way (docs/design.md#concurrency).
  if (head === null) return false;
  const [last] = await store.readStream(stream, { after: head - 1, limit: 1 });
  return last !== undefined && isTerminalEvent(last.type);
}
