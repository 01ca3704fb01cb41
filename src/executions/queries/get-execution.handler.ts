import { Inject } from '@nestjs/common';
import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ExecutionState } from '../domain/execution-state';
import { GetExecutionQuery } from './get-execution.query';
import { loadOwnedExecution } from './load-owned-execution';

@QueryHandler(GetExecutionQuery)
export class GetExecutionHandler implements IQueryHandler<GetExecutionQuery> {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async execute({ tenantId, executionId }: GetExecutionQuery): Promise<ExecutionState> {
    return (await loadOwnedExecution(this.store, executionId, tenantId)).state;
  }
}
