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
 * What replay and SSE need to know before they answer, in three small reads whatever the
 * stream's length: the stream's tenant (a column, never `run.queued`'s possibly large `config`),
 * the head, and the head's event.
 */
export async function ownedStreamSummary(store: EventStore, executionId: string, tenantId: string): Promise<StreamSummary> {
  const stream = executionStream(executionId);
  if ((await store.streamTenant(stream)) !== tenantId) throw new ExecutionNotFoundError(executionId);
  const head = (await store.streamHead(stream))!;
  const [last] = await store.readStream(stream, { after: head - 1, limit: 1 });
  return { lastSequence: head + 1, terminal: isTerminalEvent(last.type) };
}
