/**
 * A refusal decided by the domain (the command makes no sense in this state). Plain TypeScript:
 * the HTTP layer maps each kind to the binding's code, and the runner tells these apart from store
 * failures by type.
 */
export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
}

export type DomainErrorKind = 'not_found' | 'invalid_state' | 'action_not_found' | 'action_already_resolved';
