import { StoredEvent } from '../event-store/event-store';
import { executionIdOf, isExecutionStream } from '../executions/execution-stream';

/** A batch's execution events by execution, each group in log order; other streams' events left out. */
export function groupByExecution(events: StoredEvent[]): Map<string, StoredEvent[]> {
  const groups = new Map<string, StoredEvent[]>();
  for (const event of events) {
    if (!isExecutionStream(event.streamId)) continue;
    const id = executionIdOf(event.streamId);
    const group = groups.get(id);
    if (group) group.push(event);
    else groups.set(id, [event]);
  }
  return groups;
}
