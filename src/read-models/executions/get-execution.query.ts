import { Query } from '@nestjs/cqrs';
import { ExecutionState } from '../../executions/domain/execution-state';

/** The execution's current state: actions, artifacts and the Execution view all derive from it. */
export class GetExecutionQuery extends Query<ExecutionState> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
  ) {
    super();
  }
}
