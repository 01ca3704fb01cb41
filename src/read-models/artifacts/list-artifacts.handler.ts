import { IQueryHandler, QueryBus, QueryHandler } from '@nestjs/cqrs';
import { ArtifactDescriptor } from '../../executions/domain/execution-events';
import { GetExecutionQuery } from '../executions/get-execution.query';
import { ReadConsistency } from '../read-consistency';
import { ArtifactsReadModel } from './artifacts.read-model';
import { ListArtifactsQuery } from './list-artifacts.query';

@QueryHandler(ListArtifactsQuery)
export class ListArtifactsHandler implements IQueryHandler<ListArtifactsQuery> {
  constructor(
    private readonly queries: QueryBus,
    private readonly consistency: ReadConsistency,
    private readonly artifacts: ArtifactsReadModel,
  ) {}

  async execute({ tenantId, executionId }: ListArtifactsQuery): Promise<ArtifactDescriptor[]> {
    await this.consistency.caughtUp();
    // Whether the tenant may see the execution is the executions read model's to answer.
    await this.queries.execute(new GetExecutionQuery(tenantId, executionId));
    return this.artifacts.of(executionId);
  }
}
