import { AppError, ErrorCode } from './errors/app-error';

const CODE_OF: Record<DomainErrorKind, ErrorCode> = {
  not_found: 'NOT_FOUND',
  invalid_state: 'INVALID_STATE',
  action_not_found: 'ACTION_NOT_FOUND',
  action_already_resolved: 'ACTION_ALREADY_RESOLVED',
};

/**
 * A refusal decided by the domain (the command makes no sense in this state). Plain TypeScript:
 * its kind is one of the binding's codes, and the runner tells these apart from store failures by
 * type.
 */
export abstract class DomainError extends AppError {
  abstract readonly kind: DomainErrorKind;

  get code(): ErrorCode {
    return CODE_OF[this.kind];
  }
}

export type DomainErrorKind = 'not_found' | 'invalid_state' | 'action_not_found' | 'action_already_resolved';
