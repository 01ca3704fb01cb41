import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { DomainError } from '../../common/domain-error';

export { CONCURRENCY_POLICIES, type ConcurrencyPolicy } from '../../common/concurrency-policy';

/**
 * The most executions one conversation may have open (admitted, not known to have ended) at
 * once: each admission records the open ones, so the list is bounded (docs/api.md#concurrency).
 */
export const MAX_OPEN_PER_CONVERSATION = 200;

/** An execution the conversation's turns stream admitted and has not yet seen end. */
export interface OpenTurn {
  executionId: string;
  concurrency: ConcurrencyPolicy;
}

/** The turns stream folded: its open executions in creation order, as the last admission left them. */
export interface TurnsState {
  open: OpenTurn[];
}

/** What a start asks of its conversation; `ended` says which of the open ones have ended since (their terminal events). */
export interface AdmitCommand {
  executionId: string;
  concurrency: ConcurrencyPolicy;
  ended: ReadonlySet<string>;
}

/** What the turns stream records for an admission, and what the start does next. */
export interface Admission {
  executionId: string;
  concurrency: ConcurrencyPolicy;
  /** The executions still open after this admission, the new one last: the next decision's state. */
  open: OpenTurn[];
  /** Earlier executions that must end before it starts; empty: it starts at once. */
  waitsFor: string[];
  /** Executions to cancel first (`interrupt`). */
  interrupts: string[];
}

export class ConversationBusyError extends DomainError {
  readonly kind = 'invalid_state';
  constructor(
    readonly conversationId: string,
    readonly openIds: string[],
  ) {
    super(`conversation ${conversationId} has an execution that has not ended (${openIds[0]}); concurrency "reject" starts only into an idle conversation`);
    this.name = 'ConversationBusyError';
  }
}

export class ConversationFullError extends DomainError {
  readonly kind = 'invalid_state';
  constructor(readonly conversationId: string) {
    super(`conversation ${conversationId} already has ${MAX_OPEN_PER_CONVERSATION} executions that have not ended; start more once some have`);
    this.name = 'ConversationFullError';
  }
}

export const interruptReason = (executionId: string) => `interrupted by execution ${executionId}`;

/**
 * Decides a start from the conversation's turns (docs/design.md#concurrency). Pure: the caller
 * appends the admission at the revision `state` was read at, and on a conflict reads and decides
 * again, so racing starts resolve as if they came one after the other.
 */
export function decideAdmission(conversationId: string, command: AdmitCommand, state: TurnsState): Admission {
  const stillOpen = state.open.filter((turn) => !command.ended.has(turn.executionId) && turn.executionId !== command.executionId);
  if (command.concurrency === 'reject' && stillOpen.length > 0) {
    throw new ConversationBusyError(
      conversationId,
      stillOpen.map((t) => t.executionId),
    );
  }
  if (stillOpen.length >= MAX_OPEN_PER_CONVERSATION) throw new ConversationFullError(conversationId);
  const earlier = stillOpen.map((t) => t.executionId);
  const waits = command.concurrency === 'enqueue' || command.concurrency === 'interrupt';
  return {
    executionId: command.executionId,
    concurrency: command.concurrency,
    open: [...stillOpen, { executionId: command.executionId, concurrency: command.concurrency }],
    waitsFor: waits ? earlier : [],
    interrupts: command.concurrency === 'interrupt' ? earlier : [],
  };
}

/** Who a queued execution still waits for: the executions admitted before it that have not ended. */
export function predecessorsOf(state: TurnsState, executionId: string, ended: ReadonlySet<string>): string[] | null {
  const index = state.open.findIndex((turn) => turn.executionId === executionId);
  if (index < 0) return null;
  return state.open
    .slice(0, index)
    .map((t) => t.executionId)
    .filter((id) => !ended.has(id));
}
