import { DomainError } from '../../common/domain-error';
import { ExecutionStatus, isTerminal } from './execution-state';

export class ExecutionNotFoundError extends DomainError {
  readonly kind = 'not_found';
  constructor(readonly executionId: string | null) {
    super(executionId ? `execution ${executionId} not found` : 'execution not found');
    this.name = 'ExecutionNotFoundError';
  }
}

/** The execution's status forbids the command; `ended` tells the runner to stop driving it. */
export class ExecutionStateError extends DomainError {
  readonly kind = 'invalid_state';
  constructor(
    readonly executionId: string,
    readonly status: ExecutionStatus | 'exists',
    message: string,
  ) {
    super(message);
    this.name = 'ExecutionStateError';
  }

  get ended(): boolean {
    return isTerminal(this.status);
  }
}

export class ActionNotFoundError extends DomainError {
  readonly kind = 'action_not_found';
  constructor(
    executionId: string,
    readonly actionId: string,
  ) {
    super(`action ${actionId} not found on execution ${executionId}`);
    this.name = 'ActionNotFoundError';
  }
}

export class ActionAlreadyResolvedError extends DomainError {
  readonly kind = 'action_already_resolved';
  constructor(readonly actionId: string) {
    super(`action ${actionId} already has an accepted response`);
    this.name = 'ActionAlreadyResolvedError';
  }
}

/** Answering an action that was cancelled when its execution ended: a state conflict (docs/api.md#actions). */
export class ActionCancelledError extends DomainError {
  readonly kind = 'invalid_state';
  constructor(readonly actionId: string) {
    super(`action ${actionId} was cancelled`);
    this.name = 'ActionCancelledError';
  }
}
