import { Command } from '@nestjs/cqrs';
import { ExecutionState } from '../domain/execution-state';

export class CancelExecutionCommand extends Command<ExecutionState> {
  constructor(
    readonly tenantId: string,
    readonly executionId: string,
    readonly reason: string | null,
  ) {
    super();
  }
}
