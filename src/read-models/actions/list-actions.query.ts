import { Query } from '@nestjs/cqrs';
import { ActionView } from '../../executions/execution-view';

/** An execution's actions (docs/api.md#actions), in creation order. */
export class ListActionsQuery extends Query<ActionView[]> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
  ) {
    super();
  }
}
