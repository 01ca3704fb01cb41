import { Query } from '@nestjs/cqrs';
import { ArtifactDescriptor } from '../../executions/domain/execution-events';

/** An execution's artifacts (docs/api.md#artifacts), in creation order. */
export class ListArtifactsQuery extends Query<ArtifactDescriptor[]> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
  ) {
    super();
  }
}
