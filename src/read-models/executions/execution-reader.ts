import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ExecutionsReadModel } from './executions.read-model';
import { ExecutionNotFoundError } from '../../executions/domain/execution-errors';
import { ExecutionState } from '../../executions/domain/execution-state';
import { executionStream, foldStored } from '../../executions/execution-stream';
import { loadOwnedExecution } from '../../executions/queries/load-owned-execution';

/**
 * An execution as a query sees it: its read-model row with the stream's tail after the row folded
 * on top, so a read by id is never older than the stream (docs/design.md#read-models-and-consistency) and never needs
 * to wait for the projector. Another tenant's execution is absent.
 */
@Injectable()
export class ExecutionReader {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly executions: ExecutionsReadModel,
  ) {}

  async read(executionId: string, tenantId: string): Promise<ExecutionState> {
    const row = this.executions.byId(executionId);
    // Not projected yet (another process wrote it just now): the stream is the truth.
    if (!row) return (await loadOwnedExecution(this.store, executionId, tenantId)).state;
    if (row.tenantId !== tenantId) throw new ExecutionNotFoundError(executionId);
    const revision = row.lastSequence - 1;
    const tail = await this.store.readStream(executionStream(executionId), { after: revision });
    return foldStored({ state: row.state, tenantId, owner: null, revision }, tail).state;
  }
}
