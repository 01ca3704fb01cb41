import { Command } from '@nestjs/cqrs';
import { ExecutionState } from '../domain/execution-state';
import type { RequestLog } from '../../observability/request-context';
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
    /** The log context of the HTTP request starting it: its lines and its run's name the execution. */
    readonly log?: RequestLog,
  ) {
    super();
  }
}
