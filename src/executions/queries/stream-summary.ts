import { EventStore } from '../../event-store/event-store';
import { ExecutionNotFoundError } from '../domain/execution-errors';
import { isTerminalEvent } from '../domain/execution-events';
import { executionStream } from '../execution-stream';

export interface StreamSummary {
  /** The sequence of the stream's last event. */
  lastSequence: number;
  terminal: boolean;
}

/**
 * What replay and SSE need to know before they answer, in two small reads whatever the
 * stream's length: the stream's tenant (a column, never parsed out of `run.queued`'s possibly
 * large `config`; SQLite keeps it from the commit or the first read) and its last event.
 */
export async function ownedStreamSummary(store: EventStore, executionId: string, tenantId: string): Promise<StreamSummary> {
  const stream = executionStream(executionId);
  if ((await store.streamTenant(stream)) !== tenantId) throw new ExecutionNotFoundError(executionId);
  const last = (await store.lastEvent(stream))!;
  return { lastSequence: last.revision + 1, terminal: isTerminalEvent(last.type) };
}
