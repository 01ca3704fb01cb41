import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ExecutionItemsReadModel } from '../../projections/items.read-model';
import { ReadConsistency } from '../../projections/read-consistency';
import { ArtifactDescriptor } from '../domain/execution-events';
import { ActionView } from '../execution-view';
import { ExecutionReader } from './execution-reader';
import { ListActionsQuery, ListArtifactsQuery } from './list-execution-items.query';

@QueryHandler(ListActionsQuery)
export class ListActionsHandler implements IQueryHandler<ListActionsQuery> {
  constructor(
    private readonly reader: ExecutionReader,
    private readonly consistency: ReadConsistency,
    private readonly items: ExecutionItemsReadModel,
  ) {}

  async execute({ tenantId, executionId }: ListActionsQuery): Promise<ActionView[]> {
    // Lists come from the read model alone: it must hold this instance's writes (else 503).
    await this.consistency.caughtUp();
    await this.reader.read(executionId, tenantId);
    return this.items.actionsOf(executionId);
  }
}

@QueryHandler(ListArtifactsQuery)
export class ListArtifactsHandler implements IQueryHandler<ListArtifactsQuery> {
  constructor(
    private readonly reader: ExecutionReader,
    private readonly consistency: ReadConsistency,
    private readonly items: ExecutionItemsReadModel,
  ) {}

  async execute({ tenantId, executionId }: ListArtifactsQuery): Promise<ArtifactDescriptor[]> {
    await this.consistency.caughtUp();
    await this.reader.read(executionId, tenantId);
    return this.items.artifactsOf(executionId);
  }
}
