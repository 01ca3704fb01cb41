import { Query } from '@nestjs/cqrs';
import { ArtifactDescriptor } from '../domain/execution-events';
import { ActionView } from '../execution-view';

/** An execution's actions (docs/api.md#actions) or artifacts (docs/api.md#artifacts), in creation order. */
export class ListActionsQuery extends Query<ActionView[]> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
  ) {
    super();
  }
}

export class ListArtifactsQuery extends Query<ArtifactDescriptor[]> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
  ) {
    super();
  }
}
