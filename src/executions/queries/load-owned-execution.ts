import { ExecutionNotFoundError } from '../domain/execution-errors';
import { EventStore } from '../../event-store/event-store';
import { LoadedExecution, loadExecution } from '../execution-stream';

/** The execution as the tenant may see it: another tenant's execution answers like a missing one. */
export async function loadOwnedExecution(store: EventStore, executionId: string, tenantId: string): Promise<LoadedExecution> {
  const loaded = await loadExecution(store, executionId);
  if (!loaded || loaded.tenantId !== tenantId) throw new ExecutionNotFoundError(executionId);
  return loaded;
}
