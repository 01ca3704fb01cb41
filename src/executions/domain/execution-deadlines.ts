import { ErrorInfo } from './execution-events';
import { ExecutionState, pendingActions } from './execution-state';

/** The longest `timeoutMs` and `actionTimeoutMs`: 7 days. */
export const MAX_TIMEOUT_MS = 604_800_000;

const plus = (iso: string, ms: number): string => new Date(Date.parse(iso) + ms).toISOString();

/** When the run fails DEADLINE_EXCEEDED: `timeoutMs` after run.queued, waiting on actions included (docs/api.md#deadlines). */
export const runDeadline = (state: ExecutionState): string | null => (state.timeoutMs === undefined ? null : plus(state.createdAt, state.timeoutMs));

/** An action's `expiresAt`, asked for at `requestedAt`: its own timeout wins over the execution's `actionTimeoutMs`. */
export function actionExpiry(state: ExecutionState, requestedAt: string, timeoutMs: number | undefined): string | null {
  const timeout = timeoutMs ?? state.actionTimeoutMs;
  return timeout === undefined ? null : plus(requestedAt, timeout);
}

/**
 * The deadline that has passed at `now`, as the run's failure, or null while none has; when
 * several have, the earliest. The events alone say when each falls, so the session's timer, the
 * restart sweep and another instance all end the run at the same instant.
 */
export function passedDeadline(state: ExecutionState, now: string): ErrorInfo | null {
  const at = Date.parse(now);
  const candidates: { due: string; error: ErrorInfo }[] = [];
  const deadline = runDeadline(state);
  if (deadline !== null) {
    candidates.push({
      due: deadline,
      error: { code: 'DEADLINE_EXCEEDED', message: `the execution's timeoutMs of ${state.timeoutMs} ms passed at ${deadline}` },
    });
  }
  for (const action of pendingActions(state)) {
    if (action.expiresAt === undefined) continue;
    candidates.push({ due: action.expiresAt, error: { code: 'ACTION_EXPIRED', message: `action ${action.id} was not answered by ${action.expiresAt}` } });
  }
  const passed = candidates.filter((c) => Date.parse(c.due) <= at).sort((a, b) => Date.parse(a.due) - Date.parse(b.due));
  return passed[0]?.error ?? null;
}
