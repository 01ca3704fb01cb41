import { nowIso } from '../../common/clock';
import { EventStore, NewEvent, StoreUnavailableError, WrongExpectedRevisionError } from '../../event-store/event-store';
import { ExecutionCommand, decide } from '../domain/execution-decide';
import { STREAMED_EVENT_TYPES } from '../domain/execution-events';
import { LoadedExecution, TimedEvent, executionStream, foldAppended, foldStored, toNewEvents } from '../execution-stream';
import { backoff, retryDelay } from '../../common/backoff';
import { StoreRetry } from './store-retry';

/** A command with the moment it was issued: its events' `occurredAt`, however long they wait. */
export interface TimedCommand {
  command: ExecutionCommand;
  at: string;
}

/** One attempt: a request that cannot write answers 503 at once and the client retries. */
export const ONE_ATTEMPT: StoreRetry = { retryMs: 0 };

/**
 * Rule 2 as one step, shared by the command handlers and the runner's stream writer: decide
 * against the folded state and append at the revision it was folded to.
 *
 * - On a conflict, read what others appended and decide again, so the decider (not a retry)
 *   answers when the commands no longer make sense.
 * - While the store is unavailable, retry the very same events (same ids) in place, with backoff,
 *   for `retry.retryMs`; then the `StoreUnavailableError` goes to the caller. Nothing later can
 *   overtake them, because the caller awaits this step.
 * - A failure may have stored the events after all (a lost acknowledgement). The retry then
 *   conflicts, and the stream's tail starting with our ids says they landed: no duplicate.
 *
 * Resolves with the state after the append (or unchanged when the commands decide nothing).
 */
export async function decideAndAppend(
  store: EventStore,
  loaded: LoadedExecution,
  commands: ExecutionCommand | TimedCommand[],
  retry: StoreRetry = ONE_ATTEMPT,
): Promise<LoadedExecution> {
  const timed = Array.isArray(commands) ? commands : [{ command: commands, at: nowIso() }];
  const stream = executionStream(loaded.state.id);
  let decided: Decided | null = null;
  let outcomeUnknown = false;
  let failures = 0;
  const firstFailure = { at: 0 };
  for (;;) {
    try {
      decided ??= decideAll(loaded, timed);
      if (decided.events.length === 0) return loaded;
      try {
        await store.append(stream, decided.news, loaded.revision);
        retry.onRecovered?.();
        return decided.after;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        const tail = await store.readStream(stream, { after: loaded.revision });
        const ours = decided.news.map((e) => e.id);
        const landed = outcomeUnknown && ours.every((id, i) => tail[i]?.id === id);
        loaded = foldStored(loaded, tail);
        if (landed) {
          retry.onRecovered?.();
          return loaded;
        }
        decided = null;
        outcomeUnknown = false;
      }
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      outcomeUnknown = true;
      retry.onUnavailable?.(error);
      if (failures++ === 0) firstFailure.at = Date.now();
      const left = firstFailure.at + retry.retryMs - Date.now();
      if (left <= 0 || retry.signal?.aborted) throw error;
      if (!(await retryDelay(Math.min(left, backoff(failures)), retry.signal))) throw error;
    }
  }
}

interface Decided {
  events: TimedEvent[];
  /** The same ids on every retry. */
  news: NewEvent[];
  /** The state once they are stored. */
  after: LoadedExecution;
}

function decideAll(loaded: LoadedExecution, timed: TimedCommand[]): Decided {
  const events: TimedEvent[] = [];
  const news: NewEvent[] = [];
  const { id } = loaded.state;
  let after = loaded;
  /** Streamed events decided but not folded yet: `after.state` lacks only their sequence. */
  let unfolded = 0;
  // Each command is decided against the state its predecessors in the batch produced. Streamed
  // events change nothing of it but its sequence, which deciding never reads, so a run of them is
  // folded at once, with what ends it (foldAppended folds only the run's last one).
  for (const { command, at } of timed) {
    const decided = decide(command, after.state);
    for (const event of decided) events.push({ event, at });
    unfolded += decided.length;
    if (!decided.every((event) => STREAMED_EVENT_TYPES.has(event.type))) {
      after = foldAppended(after, events.slice(events.length - unfolded));
      unfolded = 0;
    }
    for (const event of toNewEvents(id, decided, { tenantId: loaded.tenantId, occurredAt: at })) news.push(event);
  }
  if (unfolded > 0) after = foldAppended(after, events.slice(events.length - unfolded));
  return { events, news, after };
}
