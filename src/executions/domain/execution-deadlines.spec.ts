import { decide } from './execution-decide';
import { actionExpiry, passedDeadline, runDeadline } from './execution-deadlines';
import { ExecutionEvent, RecordedExecutionEvent } from './execution-events';
import { ExecutionState, fold } from './execution-state';

const QUEUED_AT = '2026-09-02T10:00:00.000Z';
const queued = (extra: { timeoutMs?: number; actionTimeoutMs?: number } = {}): ExecutionEvent => ({
  type: 'run.queued',
  data: { conversationId: 'c-1', provider: 'scripted', input: { text: 'hi' }, requiredCapabilities: [], config: {}, idempotencyKey: null, ...extra },
});
const started: ExecutionEvent = { type: 'run.started', data: { provider: 'scripted' } };
const action = (actionId: string, expiresAt?: string): ExecutionEvent => ({
  type: 'action.required',
  data: { actionId, kind: 'approval', prompt: 'ok?', inputSchema: null, tool: null, ...(expiresAt && { expiresAt }) },
});
const answered = (actionId: string): ExecutionEvent => ({ type: 'action.responded', data: { actionId, response: { decision: 'approve' } } });

/** The state after these events, the first at QUEUED_AT and each later one a second after it. */
function stateAfter(...events: ExecutionEvent[]): ExecutionState {
  const at = (i: number) => new Date(Date.parse(QUEUED_AT) + i * 1000).toISOString();
  return fold(
    events.map((e, i) => ({ ...e, sequence: i + 1, occurredAt: at(i) }) as RecordedExecutionEvent),
    'exec-1',
  )!;
}

describe('deadlines (docs/api.md#deadlines), decided from the events alone', () => {
  it('the run deadline is timeoutMs after run.queued; none without timeoutMs', () => {
    expect(runDeadline(stateAfter(queued({ timeoutMs: 1500 })))).toBe('2026-09-02T10:00:01.500Z');
    expect(runDeadline(stateAfter(queued()))).toBeNull();
  });

  it("an action's own timeout wins over the execution's actionTimeoutMs", () => {
    const state = stateAfter(queued({ actionTimeoutMs: 60_000 }));
    expect(actionExpiry(state, '2026-09-02T10:00:05.000Z', 200)).toBe('2026-09-02T10:00:05.200Z');
    expect(actionExpiry(state, '2026-09-02T10:00:05.000Z', undefined)).toBe('2026-09-02T10:01:05.000Z');
    expect(actionExpiry(stateAfter(queued()), '2026-09-02T10:00:05.000Z', undefined)).toBeNull();
  });

  it('nothing has passed before the instant, and exactly at it the run fails DEADLINE_EXCEEDED', () => {
    const state = stateAfter(queued({ timeoutMs: 1500 }), started);
    expect(passedDeadline(state, '2026-09-02T10:00:01.499Z')).toBeNull();
    expect(decide({ type: 'expire', now: '2026-09-02T10:00:01.499Z' }, state)).toEqual([]);
    expect(decide({ type: 'expire', now: '2026-09-02T10:00:01.500Z' }, state)).toEqual([
      { type: 'run.failed', data: { error: { code: 'DEADLINE_EXCEEDED', message: expect.stringContaining('1500 ms') }, usage: null } },
    ]);
  });

  it('an unanswered action past its expiresAt fails the run ACTION_EXPIRED; an answered one never does', () => {
    const waiting = stateAfter(queued(), started, action('a1', '2026-09-02T10:00:03.000Z'));
    expect(decide({ type: 'expire', now: '2026-09-02T10:00:03.000Z' }, waiting)).toEqual([
      { type: 'run.failed', data: { error: { code: 'ACTION_EXPIRED', message: expect.stringContaining('a1') }, usage: null } },
    ]);
    // The answer got into the log first: the expiry, decided again after the conflict, appends nothing.
    const answeredFirst = stateAfter(queued(), started, action('a1', '2026-09-02T10:00:03.000Z'), answered('a1'));
    expect(decide({ type: 'expire', now: '2026-09-02T10:00:09.000Z' }, answeredFirst)).toEqual([]);
  });

  it('when several have passed, the earliest names the failure', () => {
    const state = stateAfter(queued({ timeoutMs: 2500 }), started, action('a1', '2026-09-02T10:00:02.100Z'));
    expect(passedDeadline(state, '2026-09-02T10:00:09.000Z')?.code).toBe('ACTION_EXPIRED');
    const later = stateAfter(queued({ timeoutMs: 2500 }), started, action('a1', '2026-09-02T10:00:02.900Z'));
    expect(passedDeadline(later, '2026-09-02T10:00:09.000Z')?.code).toBe('DEADLINE_EXCEEDED');
  });

  it('an ended run cannot expire: the end that came first stands', () => {
    const ended = stateAfter(queued({ timeoutMs: 10 }), started, { type: 'run.cancelled', data: { reason: null, providerCleanupError: null } });
    expect(() => decide({ type: 'expire', now: '2026-09-02T10:00:09.000Z' }, ended)).toThrow(/cannot expire/);
  });

  it('expiresAt is kept on the action while it is pending', () => {
    expect(stateAfter(queued(), started, action('a1', '2026-09-02T10:00:03.000Z')).actions[0].expiresAt).toBe('2026-09-02T10:00:03.000Z');
    expect(stateAfter(queued(), started, action('a1')).actions[0]).not.toHaveProperty('expiresAt');
  });
});
