import { DomainError } from '../../common/domain-error';
import { ExecutionCommand, decide } from './execution-decide';
import { ExecutionEvent, RecordedExecutionEvent } from './execution-events';
import { ExecutionState, fold } from './execution-state';

const ID = 'exec-1';
const queued: ExecutionEvent = {
  type: 'run.queued',
  data: { conversationId: 'c-1', provider: 'scripted', input: { text: 'hi' }, requiredCapabilities: [], config: {}, idempotencyKey: null },
};
const started: ExecutionEvent = { type: 'run.started', data: { provider: 'scripted' } };
const actionRequired = (actionId: string): ExecutionEvent => ({
  type: 'action.required',
  data: { actionId, kind: 'approval', prompt: 'ok?', inputSchema: null, tool: null },
});
const completed: ExecutionEvent = { type: 'run.completed', data: { usage: null } };

/** Given these events happened, when the command arrives, then these events (or this error). */
function given(...events: ExecutionEvent[]) {
  const recorded = events.map((e, i) => ({ ...e, sequence: i + 1, occurredAt: `2026-09-02T10:00:0${i}.000Z` }) as RecordedExecutionEvent);
  const state = fold(recorded, ID);
  return {
    state: state as ExecutionState,
    when: (command: ExecutionCommand) => ({
      then: (expected: ExecutionEvent[]) => expect(decide(command, state)).toEqual(expected),
      thenFails: (kind: string) => {
        let thrown: unknown;
        try {
          decide(command, state);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(DomainError);
        expect((thrown as DomainError).kind).toBe(kind);
      },
    }),
  };
}

describe('execution decider', () => {
  it('queues a new execution once', () => {
    given()
      .when({ type: 'queue', data: (queued as any).data })
      .then([queued]);
    given(queued)
      .when({ type: 'queue', data: (queued as any).data })
      .thenFails('invalid_state');
  });

  it('starts only a queued execution', () => {
    given(queued).when({ type: 'start' }).then([started]);
    given(queued, started).when({ type: 'start' }).thenFails('invalid_state');
  });

  it('completes with the final text and the terminal event together', () => {
    given(queued, started)
      .when({ type: 'complete', text: 'hi', usage: null })
      .then([{ type: 'output.text.done', data: { text: 'hi' } }, completed]);
    given(queued, started).when({ type: 'complete', text: null, usage: null }).then([completed]);
  });

  it('refuses provider output after the terminal event', () => {
    const delta: ExecutionEvent = { type: 'output.text.delta', data: { delta: 'x' } };
    given(queued, started, completed)
      .when({ type: 'emit', output: [delta as any] })
      .thenFails('invalid_state');
    given(queued, started, completed)
      .when({ type: 'fail', error: { code: 'X', message: 'x' } })
      .thenFails('invalid_state');
  });

  it('cancels a live execution once; a cancelled one again is a no-op; an ended one is refused', () => {
    const cancelled: ExecutionEvent = { type: 'run.cancelled', data: { reason: 'r', providerCleanupError: null, usage: null } };
    given(queued).when({ type: 'cancel', reason: 'r', providerCleanupError: null }).then([cancelled]);
    given(queued, cancelled).when({ type: 'cancel', reason: 'again', providerCleanupError: null }).then([]);
    given(queued, started, completed).when({ type: 'cancel', reason: null, providerCleanupError: null }).thenFails('invalid_state');
  });

  it('accepts one answer per action, in the binding order of refusals', () => {
    const responded: ExecutionEvent = { type: 'action.responded', data: { actionId: 'a', response: { decision: 'approve' } } };
    const respond: ExecutionCommand = { type: 'respond', actionId: 'a', response: { decision: 'approve' } };
    given(queued, started, actionRequired('a')).when(respond).then([responded]);
    given(queued, started, actionRequired('a'))
      .when({ ...respond, actionId: 'b' } as ExecutionCommand)
      .thenFails('action_not_found');
    given(queued, started, actionRequired('a'), responded).when(respond).thenFails('action_already_resolved');
    given(queued, started, actionRequired('a'), completed).when(respond).thenFails('invalid_state');
  });
});

describe('execution state', () => {
  it('waits on actions until every one is answered, and cancels the unanswered ones at the end', () => {
    const { state } = given(queued, started, actionRequired('a'), actionRequired('b'), {
      type: 'action.responded',
      data: { actionId: 'a', response: { decision: 'approve' } },
    });
    expect(state.status).toBe('requires_action');
    const ended = given(queued, started, actionRequired('a'), { type: 'run.failed', data: { error: { code: 'X', message: 'x' } } }).state;
    expect(ended.status).toBe('failed');
    expect(ended.actions[0]).toMatchObject({ status: 'cancelled', resolvedAt: '2026-09-02T10:00:03.000Z' });
  });

  it('tracks sequence, timestamps and output', () => {
    const { state } = given(queued, started, { type: 'output.text.done', data: { text: 'hi' } }, completed);
    expect(state).toMatchObject({
      status: 'completed',
      outputText: 'hi',
      lastSequence: 4,
      createdAt: '2026-09-02T10:00:00.000Z',
      startedAt: '2026-09-02T10:00:01.000Z',
      endedAt: '2026-09-02T10:00:03.000Z',
    });
  });
});

describe('execution decider and the last sequence', () => {
  // The runner decides a batch's commands without folding each streamed event first (decide-and-append.ts).
  it('decides the same whatever the state says its last sequence is', () => {
    const commands: ExecutionCommand[] = [
      { type: 'start' },
      { type: 'emit', output: [{ type: 'output.text.delta', data: { delta: 'x' } }] },
      { type: 'complete', text: 'done', usage: null },
      { type: 'fail', error: { code: 'PROVIDER_ERROR', message: 'no' } },
      { type: 'cancel', reason: null, providerCleanupError: null },
      { type: 'expire', now: '2026-09-02T11:00:00.000Z' },
      { type: 'respond', actionId: 'a-1', response: { decision: 'approve' } },
    ];
    const outcome = (command: ExecutionCommand, state: ExecutionState) => {
      try {
        return decide(command, state);
      } catch (error) {
        return (error as DomainError).kind;
      }
    };
    for (const events of [[queued], [queued, started], [queued, started, actionRequired('a-1')], [queued, started, completed]]) {
      const { state } = given(...events);
      for (const command of commands) {
        expect(outcome(command, { ...state, lastSequence: state.lastSequence + 7 })).toEqual(outcome(command, state));
      }
    }
  });
});
