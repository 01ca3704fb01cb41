import { ErrorInfo, ExecutionEvent, Usage } from './execution-events';
import { ActionState, ExecutionState, isTerminal } from './execution-state';
import { passedDeadline } from './execution-deadlines';
import { ActionAlreadyResolvedError, ActionCancelledError, ActionNotFoundError, ExecutionNotFoundError, ExecutionStateError } from './execution-errors';

type QueuedData = Extract<ExecutionEvent, { type: 'run.queued' }>['data'];
type ProviderOutput = Extract<ExecutionEvent, { type: 'output.text.delta' | 'provider.event' | 'action.required' | 'artifact.created' }>;

export type ExecutionCommand =
  | { type: 'queue'; data: QueuedData }
  /** `model`: the one the provider names for the run's config, when it has one. */
  | { type: 'start'; model?: string }
  | { type: 'emit'; output: ProviderOutput[] }
  // Every end carries what the run spent up to it (docs/api.md#usage-and-budgets); null when nothing was reported.
  | { type: 'complete'; text: string | null; usage: Usage | null }
  // Left out by whoever ends a run without its session (the restart sweep, a reaper): no usage is known there.
  | { type: 'fail'; error: ErrorInfo; usage?: Usage | null }
  | { type: 'cancel'; reason: string | null; providerCleanupError: string | null; usage?: Usage | null }
  /** A deadline's timer fired at `now`: the run fails if one has passed, else (an answer came first) nothing. */
  | { type: 'expire'; now: string; usage?: Usage | null }
  | { type: 'respond'; actionId: string; response: Record<string, unknown> };

const invalidState = (state: ExecutionState, command: string) =>
  new ExecutionStateError(state.id, state.status, `cannot ${command}: execution ${state.id} is ${state.status}`);

function requireLive(state: ExecutionState | null, command: string): ExecutionState {
  if (!state) throw new ExecutionNotFoundError(null);
  if (isTerminal(state.status)) throw invalidState(state, command);
  return state;
}

/**
 * The checks an answer to an action passes before its body is even looked at, in the binding's
 * order (docs/api.md#actions): unknown action, already answered, then cancelled action or ended execution.
 */
export function respondableAction(state: ExecutionState, actionId: string): ActionState {
  const action = state.actions.find((a) => a.id === actionId);
  if (!action) throw new ActionNotFoundError(state.id, actionId);
  if (action.status === 'resolved') throw new ActionAlreadyResolvedError(actionId);
  if (action.status === 'cancelled') throw new ActionCancelledError(actionId);
  if (isTerminal(state.status)) throw invalidState(state, 'respond');
  return action;
}

/** Which events a command produces against the current state. Pure: no I/O, no clock. */
export function decide(command: ExecutionCommand, state: ExecutionState | null): ExecutionEvent[] {
  switch (command.type) {
    case 'queue':
      if (state) throw new ExecutionStateError(state.id, 'exists', `execution ${state.id} already exists`);
      return [{ type: 'run.queued', data: command.data }];
    case 'start': {
      const live = requireLive(state, 'start');
      if (live.status !== 'queued') throw invalidState(live, 'start');
      return [{ type: 'run.started', data: { provider: live.provider, ...(command.model !== undefined && { model: command.model }) } }];
    }
    case 'emit':
      requireLive(state, 'append provider output');
      return command.output;
    case 'complete':
      requireLive(state, 'complete');
      // The final text and the terminal event always travel together (docs/api.md#events).
      return [
        ...(command.text !== null ? [{ type: 'output.text.done' as const, data: { text: command.text } }] : []),
        { type: 'run.completed', data: { usage: command.usage } },
      ];
    case 'fail':
      requireLive(state, 'fail');
      return [{ type: 'run.failed', data: { error: command.error, usage: command.usage ?? null } }];
    case 'expire': {
      const error = passedDeadline(requireLive(state, 'expire'), command.now);
      return error ? [{ type: 'run.failed', data: { error, usage: command.usage ?? null } }] : [];
    }
    case 'cancel':
      if (!state) throw new ExecutionNotFoundError(null);
      if (state.status === 'cancelled') return [];
      requireLive(state, 'cancel');
      return [{ type: 'run.cancelled', data: { reason: command.reason, providerCleanupError: command.providerCleanupError, usage: command.usage ?? null } }];
    case 'respond': {
      if (!state) throw new ExecutionNotFoundError(null);
      respondableAction(state, command.actionId);
      return [{ type: 'action.responded', data: { actionId: command.actionId, response: command.response } }];
    }
  }
}
