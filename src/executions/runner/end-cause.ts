import { StoreUnavailableError } from '../../event-store/event-store';
import { ProviderOutcome } from '../../providers/provider';
import { hasEnded } from '../commands/end-execution';
import { ExecutionCommand } from '../domain/execution-decide';
import { ErrorInfo, Usage } from '../domain/execution-events';

/** Raised into the provider when the execution can no longer take its output. */
export class ExecutionStoppedError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'ExecutionStoppedError';
  }
}

/** Why a run ends; the session's `end(cause)` turns each into the run's one recorded end (or, halted, none). */
export type EndCause =
  | { kind: 'completed'; outcome: ProviderOutcome }
  /** The provider failed, or the runtime failed it for the provider (an invalid artifact). */
  | { kind: 'failed'; error: ErrorInfo }
  /** Output passed MAX_EVENTS_PER_EXECUTION or MAX_EVENT_BYTES. */
  | { kind: 'limit'; message: string }
  | { kind: 'cancelled'; reason: string | null }
  /** The execution's `timeoutMs` passed (docs/api.md#deadlines). */
  | { kind: 'deadline'; now: string }
  /** The usage the provider reported passed the execution's `budget` (docs/api.md#usage-and-budgets). */
  | { kind: 'budget'; error: ErrorInfo }
  /** The action's `expiresAt` passed, unless an answer got into the log first. */
  | { kind: 'expired'; actionId: string; now: string }
  /** The store refused the run's events for longer than STORE_RETRY_MS. */
  | { kind: 'outage'; error: StoreUnavailableError }
  /** The process is going away: nothing is recorded, the next start (or another instance) ends the run. */
  | { kind: 'halted' };

/** Each kind of cause ends a run once; each action's expiry is a kind of its own. */
export const endKey = (cause: EndCause): string => (cause.kind === 'expired' ? `expired:${cause.actionId}` : cause.kind);

/** The causes that stop the provider, run its cleanup, then record the end. */
export type StoppingCause = Extract<EndCause, { kind: 'cancelled' | 'deadline' | 'budget' }>;

/** Why the provider is stopped, and what its failed cleanup is logged as (a cancel records it instead). */
export const STOPPING: Record<StoppingCause['kind'], { reason: string; cleanupFailedAfter: string | null }> = {
  cancelled: { reason: 'execution was cancelled', cleanupFailedAfter: null },
  deadline: { reason: 'execution passed its deadline', cleanupFailedAfter: 'the deadline' },
  budget: { reason: 'execution passed its budget', cleanupFailedAfter: 'passing its budget' },
};

/** The end a stopping cause records once the provider's cleanup has run. */
export function stoppedEnd(cause: StoppingCause, usage: Usage | null, providerCleanupError: string | null): ExecutionCommand {
  switch (cause.kind) {
    case 'cancelled':
      return { type: 'cancel', reason: cause.reason, providerCleanupError, usage };
    case 'deadline':
      return { type: 'expire', now: cause.now, usage };
    case 'budget':
      return { type: 'fail', error: cause.error, usage };
  }
}

/** An append that finds the run already ended needs nothing more. */
export const ignoreEnded = (error: unknown): void => {
  if (!hasEnded(error)) throw error;
};
