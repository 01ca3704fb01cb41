import { Admission, ConcurrencyPolicy, OpenTurn, TurnsState, decideAdmission, predecessorsOf } from '../../conversations/domain/concurrency';
import { appendAdmissions, readTurns } from '../../conversations/turns-stream';
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
  /**
   * Whether an execution is still being driven by this process: such a turn is open without
   * reading its stream. A session that has just appended its end still answers true until it is
   * gone, which only keeps the turn open one admission longer (the next one reads the stream):
   * admission never needs more than "not known to have ended".
   */
  runningHere?: (executionId: string) => boolean;
}

/** Parallel starts of one conversation decided together at most; the rest wait for the next batch. */
const MAX_BATCH = 100;

interface Waiting {
  request: AdmitRequest;
  resolve(admission: Admission): void;
  reject(error: unknown): void;
}

/** Per store, the parallel starts waiting for each conversation's batch in flight. */
const waitingByStore = new WeakMap<EventStore, Map<string, Waiting[]>>();

/**
 * Admits an execution into its conversation (docs/design.md#concurrency): reads the turns, asks
 * each open execution's stream whether it has ended, lets the pure decider choose, and appends
 * the admission at the revision read. A conflict is a racing start: read and decide again. An
 * execution admitted already (an idempotent retry) is answered from the turns, nothing appended.
 *
 * Parallel starts of one conversation on this process are admitted in batches: those that arrive
 * while a batch is in flight are decided one after the other on one read of the turns and go in
 * one append. Racing each other instead, N concurrent starts cost N² reads and N commits.
 */
export function admitExecution(store: EventStore, request: AdmitRequest): Promise<Admission> {
  if (request.concurrency !== 'parallel') return admitAlone(store, request);
  const waiting = waitingByStore.get(store) ?? new Map<string, Waiting[]>();
  waitingByStore.set(store, waiting);
  return new Promise((resolve, reject) => {
    const queue = waiting.get(request.conversationId);
    if (queue) return void queue.push({ request, resolve, reject });
    waiting.set(request.conversationId, [{ request, resolve, reject }]);
    void admitBatches(store, waiting, request.conversationId);
  });
}

async function admitBatches(store: EventStore, waiting: Map<string, Waiting[]>, conversationId: string): Promise<void> {
  const queue = waiting.get(conversationId)!;
  while (queue.length > 0) {
    const batch = queue.splice(0, MAX_BATCH);
    await admitParallel(store, conversationId, batch).catch((error) => batch.forEach((w) => w.reject(error)));
  }
  // No await between the empty check and this: a start can never join a finished queue.
  waiting.delete(conversationId);
}

/** One batch of parallel starts: each waits for no one, so none waits for an earlier one's run.queued. */
async function admitParallel(store: EventStore, conversationId: string, batch: Waiting[]): Promise<void> {
  for (;;) {
    const turns = await readTurns(store, conversationId);
    const { ended } = await endsOf(store, turns.state.open, batch[0].request.runningHere);
    let state: TurnsState = turns.state;
    const admitted: Admission[] = [];
    const outcomes = batch.map((waiting): Admission | Error => {
      const { executionId } = waiting.request;
      const mine = state.open.find((turn) => turn.executionId === executionId);
      if (mine) return readmitted(mine, predecessorsOf(state, executionId, ended) ?? [], state.open);
      try {
        const admission = decideAdmission(conversationId, { ...waiting.request, ended }, state);
        state = { open: admission.open };
        admitted.push(admission);
        return admission;
      } catch (error) {
        return error as Error;
      }
    });
    try {
      if (admitted.length > 0) await appendAdmissions(store, batch[0].request.tenantId, conversationId, admitted, turns.revision);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) continue;
      throw error;
    }
    batch.forEach((waiting, i) => {
      const outcome = outcomes[i];
      if (outcome instanceof Error) waiting.reject(outcome);
      else waiting.resolve(outcome);
    });
    return;
  }
}

/** One start on its own: it may wait for an earlier admitted start's run.queued. */
async function admitAlone(store: EventStore, request: AdmitRequest): Promise<Admission> {
  const began = Date.now();
  for (let waits = 1; ;) {
    const turns = await readTurns(store, request.conversationId);
    const mine = turns.state.open.find((turn) => turn.executionId === request.executionId);
    const { ended, absent } = await endsOf(store, turns.state.open, request.runningHere);
    if (mine) return readmitted(mine, predecessorsOf(turns.state, mine.executionId, ended) ?? [], turns.state.open);
    // An admitted start not yet queued is about to be: waiting for its run.queued keeps the
    // conversation's list (by run.queued) in the order its turns were decided. One that never
    // comes (its process died in between) stops holding the others after ADMISSION_GRACE_MS.
    if (absent.length > 0) {
      if (Date.now() - began < ADMISSION_GRACE_MS) {
        // Its run.queued is one append away: a few ms, growing to 50 while it does not come.
        await retryDelay(Math.min(5 * waits++, 50));
        continue;
      }
      for (const id of absent) ended.add(id);
    }
    const admission = decideAdmission(request.conversationId, { ...request, ended }, turns.state);
    try {
      await appendAdmissions(store, request.tenantId, request.conversationId, [admission], turns.revision);
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

/**
 * Which of these executions have ended: a terminal event is the last of its stream, and final.
 * Always read from the streams: a wait that asks must not miss an end (queued-starts.ts).
 */
export async function endedAmong(store: EventStore, turns: readonly { executionId: string }[]): Promise<Set<string>> {
  return (await endsOf(store, turns)).ended;
}

async function endsOf(
  store: EventStore,
  turns: readonly { executionId: string }[],
  runningHere: (executionId: string) => boolean = () => false,
): Promise<{ ended: Set<string>; absent: string[] }> {
  // A read per open turn otherwise: a conversation with many runs in flight costs each batch of
  // starts a read of every one of them.
  const ends = await Promise.all(turns.map(({ executionId }) => (runningHere(executionId) ? Promise.resolve('open' as const) : endOf(store, executionId))));
  return {
    ended: new Set(turns.filter((_, i) => ends[i] === 'ended').map((t) => t.executionId)),
    absent: turns.filter((_, i) => ends[i] === 'absent').map((t) => t.executionId),
  };
}

async function endOf(store: EventStore, executionId: string): Promise<'ended' | 'open' | 'absent'> {
  const last = await store.lastEvent(executionStream(executionId));
  // Admitted but not yet queued: a start on its way (docs/design.md#concurrency).
  if (last === null) return 'absent';
  return isTerminalEvent(last.type) ? 'ended' : 'open';
}
