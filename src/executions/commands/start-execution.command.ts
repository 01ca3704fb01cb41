import { Command } from '@nestjs/cqrs';
import { ExecutionState } from '../domain/execution-state';
import { ClaimedRequest } from './idempotency-claims';

export interface StartExecutionResult {
  state: ExecutionState;
  /** True when an idempotency key returned an existing execution. */
  replayed: boolean;
}

export class StartExecutionCommand extends Command<StartExecutionResult> {
  constructor(
    readonly tenantId: string,
    readonly request: ClaimedRequest,
  ) {
    super();
  }
}
