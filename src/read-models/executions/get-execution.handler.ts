import { IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { ExecutionState } from '../../executions/domain/execution-state';
import { ExecutionReader } from './execution-reader';
import { GetExecutionQuery } from './get-execution.query';

@QueryHandler(GetExecutionQuery)
export class GetExecutionHandler implements IQueryHandler<GetExecutionQuery> {
  constructor(private readonly reader: ExecutionReader) {}

  execute({ tenantId, executionId }: GetExecutionQuery): Promise<ExecutionState> {
    return this.reader.read(executionId, tenantId);
  }
}
