import { nowIso } from '../../common/clock';
import { EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { ExecutionCommand, decide } from '../domain/execution-decide';
import { LoadedExecution, executionStream, foldAppended, loadExecution, toNewEvents } from '../execution-stream';

/**
 * Rule 2 as one step: decide against the folded state and append at the revision it was folded
 * to; on a conflict, read what others appended and decide again, so the decider (not a retry)
 * answers when the command no longer makes sense. Resolves with the state the append produced.
 */
export async function decideAndAppend(
  store: EventStore,
  loaded: LoadedExecution,
  command: ExecutionCommand,
): Promise<LoadedExecution> {
  const { id } = loaded.state;
  for (;;) {
    const events = decide(command, loaded.state);
    if (events.length === 0) return loaded;
    const occurredAt = nowIso();
    try {
      await store.append(executionStream(id), toNewEvents(id, events, { tenantId: loaded.tenantId, occurredAt }), loaded.revision);
      return foldAppended(loaded, events.map((event) => ({ event, at: occurredAt })));
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      loaded = (await loadExecution(store, id, loaded))!;
    }
  }
}
