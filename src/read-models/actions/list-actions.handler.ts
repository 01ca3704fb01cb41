import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { ActionView } from '../../executions/execution-view';
import { GetExecutionQuery } from '../executions/get-execution.query';
import { ReadConsistency } from '../read-consistency';
import { ActionsReadModel } from './actions.read-model';
import { ListActionsQuery } from './list-actions.query';

@QueryHandler(ListActionsQuery)
export class ListActionsHandler implements IQueryHandler<ListActionsQuery> {
  constructor(
    private readonly queries: QueryBus,
    private readonly consistency: ReadConsistency,
    private readonly actions: ActionsReadModel,
  ) {}

  async execute({ tenantId, executionId }: ListActionsQuery): Promise<ActionView[]> {
    // Lists come from the read model alone: it must hold this instance's writes (else 503).
    await this.consistency.caughtUp();
    // Whether the tenant may see the execution is the executions read model's to answer.
    await this.queries.execute(new GetExecutionQuery(tenantId, executionId));
    return this.actions.of(executionId);
  }
}
