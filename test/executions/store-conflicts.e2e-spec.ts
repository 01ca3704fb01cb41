import { CommandBus } from '@nestjs/cqrs';
import { ActionAlreadyResolvedError, ExecutionStateError } from '../../src/executions/domain/execution-errors';
import { nowIso } from '../../src/common/clock';
import { EVENT_STORE, EventStore, WrongExpectedRevisionError } from '../../src/event-store/event-store';
import { CancelExecutionCommand } from '../../src/executions/commands/cancel-execution.command';
import { RespondToActionCommand } from '../../src/executions/commands/respond-to-action.command';
import { ExecutionEvent } from '../../src/executions/domain/execution-events';
import { executionStream, toNewEvents } from '../../src/executions/execution-stream';
import { api, useApp, waitForExecution } from '../support/app-harness';
import {
  cancel,
  countOf,
  expectError,
  listActions,
  replay,
  respond,
  startScript,
  typesOf,
  waitForAction,
  waitForExecutionEnd,
} from '../support/execution-helpers';

/**
 * better-sqlite3 serialises one process, so races through HTTP rarely hit the conflict paths in
 * every order. These tests write to the real store directly, as another writer (another instance,
 * a restart) would, and check that appends name their expected revision and that the command
 * handlers re-read and let the decider answer (rule 2).
 */
describe('conflicts at the event store: expected revisions, re-read and re-decide', () => {
  const app = useApp({ conversation: true });
  let store: EventStore;
  let commands: CommandBus;
  beforeAll(() => {
    store = app.app.get<EventStore>(EVENT_STORE);
    commands = app.app.get(CommandBus);
  });

  /** The stream's head revision (sequence - 1). */
  const headOf = async (id: string) => (await store.readStream(executionStream(id))).length - 1;
  /** Appends as a foreign writer would, naming the revision it expects. */
  const appendForeign = (id: string, events: ExecutionEvent[], expected: number) =>
    store.append(executionStream(id), toNewEvents(id, events, { tenantId: 'default', occurredAt: nowIso() }), expected);
  const errorOf = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: unknown) => error,
    );
  /** Records which event types were appended to a stream against which expected revision. */
  const watchAppends = (id: string, hold?: { before: string; run: () => Promise<unknown> }) => {
    const seen: { types: string[]; expected: unknown }[] = [];
    const original = store.append.bind(store);
    let held = false;
    const spy = jest.spyOn(store, 'append').mockImplementation(async (streamId, events, expected) => {
      if (streamId === executionStream(id)) seen.push({ types: events.map((e) => e.type), expected });
      if (hold && !held && streamId === executionStream(id) && events.some((e) => e.type === hold.before)) {
        held = true;
        await hold.run();
      }
      return original(streamId, events, expected);
    });
    return { seen, restore: () => spy.mockRestore() };
  };

  const waitingExecution = async (
    script = [
      { type: 'action', kind: 'approval', prompt: 'ok?' },
      { type: 'text', text: 'after' },
    ],
  ) => {
    const started = await startScript(app.baseUrl, app.conversationId, script);
    const waiting = await waitForAction(app.baseUrl, started.id);
    return { id: started.id as string, actionId: waiting.pendingActionIds[0] as string };
  };

  it('an append with a stale expected revision fails with WrongExpectedRevisionError and writes nothing', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'text', text: 'done' }]);
    await waitForExecutionEnd(app.baseUrl, started.id);
    const head = await headOf(started.id);
    const before = await replay(app.baseUrl, started.id);

    const event: ExecutionEvent = { type: 'provider.event', data: { namespace: 'test', name: 'late', payload: {} } };
    for (const expected of [head - 1, 0, head + 1]) {
      const error = await errorOf(appendForeign(started.id, [event], expected));
      expect(error).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error).toMatchObject({ streamId: executionStream(started.id), expected, actual: head });
    }
    const noStream = await errorOf(
      store.append(executionStream(started.id), toNewEvents(started.id, [event], { tenantId: 'default', occurredAt: nowIso() }), 'no_stream'),
    );
    expect(noStream).toBeInstanceOf(WrongExpectedRevisionError);
    expect(await replay(app.baseUrl, started.id)).toEqual(before);
  });

  it('two appends naming the same revision in one tick: exactly one lands', async () => {
    const { id } = await waitingExecution();
    const head = await headOf(id);
    const event = (name: string): ExecutionEvent => ({ type: 'provider.event', data: { namespace: 'test', name, payload: {} } });
    const outcomes = await Promise.allSettled([appendForeign(id, [event('a')], head), appendForeign(id, [event('b')], head)]);
    expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect(countOf(await replay(app.baseUrl, id), 'provider.event')).toBe(1);
    expect((await cancel(app.baseUrl, id)).status).toBe(200);
  });

  it('an action resolved by another writer: POST respond re-reads and answers 409 ACTION_ALREADY_RESOLVED', async () => {
    const { id, actionId } = await waitingExecution();
    await appendForeign(id, [{ type: 'action.responded', data: { actionId, response: { decision: 'approve', comment: 'elsewhere' } } }], await headOf(id));

    expectError(await respond(app.baseUrl, id, actionId, { decision: 'deny' }), 409, 'ACTION_ALREADY_RESOLVED');
    const [action] = await listActions(app.baseUrl, id);
    expect(action).toMatchObject({ status: 'resolved', response: { decision: 'approve', comment: 'elsewhere' } });
    expect(countOf(await replay(app.baseUrl, id), 'action.responded')).toBe(1);
    // The owner follows the log on every store, so the answer reached the provider after all.
    expect((await waitForExecution(app.baseUrl, id)).status).toBe('completed');
  });

  it('a respond decided on a stale state loses the append, re-reads, and the decider answers ACTION_ALREADY_RESOLVED', async () => {
    const { id, actionId } = await waitingExecution();
    const head = await headOf(id);
    // The foreign append lands after the handler has read and decided, just before its own
    // append: that one names a stale revision and must conflict, on every store and however the
    // machine schedules the two (racing them left the order to PostgreSQL's timing).
    const foreign = () => appendForeign(id, [{ type: 'action.responded', data: { actionId, response: { decision: 'deny' } } }], head);
    const appends = watchAppends(id, { before: 'action.responded', run: foreign });
    const error = await errorOf(commands.execute(new RespondToActionCommand('default', id, actionId, { decision: 'approve' })));
    appends.restore();
    // Both writers named the same revision; the handler's lost, and its re-decision refused.
    expect(appends.seen.filter((a) => a.types.includes('action.responded'))).toEqual([
      { types: ['action.responded'], expected: head },
      { types: ['action.responded'], expected: head },
    ]);
    expect(error).toBeInstanceOf(ActionAlreadyResolvedError);
    const events = await replay(app.baseUrl, id);
    expect(events.filter((e) => e.type === 'action.responded').map((e) => e.data.response)).toEqual([{ decision: 'deny' }]);
    // The owner heard the denial through the log (on every store), and the run may have ended ACTION_DENIED.
    expect([200, 409]).toContain((await cancel(app.baseUrl, id)).status);
  });

  it('an execution ended by another writer: cancel and respond answer 409 INVALID_STATE and append nothing', async () => {
    const { id, actionId } = await waitingExecution();
    // What a restart does to a run it finds in flight (docs/api.md#executions): run.failed RUNTIME_INTERRUPTED.
    const interrupted = { code: 'RUNTIME_INTERRUPTED', message: 'the runtime stopped while this execution was in flight' };
    await appendForeign(id, [{ type: 'run.failed', data: { error: interrupted } }], await headOf(id));
    const before = await replay(app.baseUrl, id);

    expectError(await cancel(app.baseUrl, id, { reason: 'too late' }), 409, 'INVALID_STATE');
    expectError(await respond(app.baseUrl, id, actionId, { decision: 'approve' }), 409, 'INVALID_STATE');
    expect(await replay(app.baseUrl, id)).toEqual(before);
    const execution = (await api(app.baseUrl, 'GET', `/v1/executions/${id}`)).body;
    expect(execution).toMatchObject({ status: 'failed', error: interrupted, pendingActionIds: [] });
    expect((await listActions(app.baseUrl, id))[0].status).toBe('cancelled');
  });

  it('a cancel racing a foreign terminal append: the cancel loses, re-reads, and answers as for an ended run', async () => {
    const { id } = await waitingExecution();
    const head = await headOf(id);
    // The foreign end lands just before the runner's run.cancelled, whichever way the cancel reaches the runner.
    const foreign = () => appendForeign(id, [{ type: 'run.failed', data: { error: { code: 'PROVIDER_ERROR', message: 'elsewhere' } } }], head);
    const appends = watchAppends(id, { before: 'run.cancelled', run: foreign });
    const error = await errorOf(commands.execute(new CancelExecutionCommand('default', id, 'stop')));
    appends.restore();
    // The cancel was decided on the live state and appended against it; it lost and re-read.
    expect(appends.seen).toEqual(
      expect.arrayContaining([
        { types: ['run.failed'], expected: head },
        { types: ['run.cancelled'], expected: head },
      ]),
    );
    expect(error).toBeInstanceOf(ExecutionStateError);
    expect(error).toMatchObject({ status: 'failed', ended: true });
    const events = await replay(app.baseUrl, id);
    expect(typesOf(events).slice(-1)).toEqual(['run.failed']);
    expect(countOf(events, 'run.cancelled')).toBe(0);
  });

  it("the runner's writer re-reads after a foreign append and carries on at the right sequence", async () => {
    const { id, actionId } = await waitingExecution();
    await appendForeign(id, [{ type: 'provider.event', data: { namespace: 'test', name: 'foreign', payload: {} } }], await headOf(id));
    expect((await respond(app.baseUrl, id, actionId, { decision: 'approve' })).status).toBe(200);
    const done = await waitForExecutionEnd(app.baseUrl, id);
    expect(done).toMatchObject({ status: 'completed', outputText: 'after' });
    const events = await replay(app.baseUrl, id);
    expect(typesOf(events)).toEqual([
      'run.queued',
      'run.started',
      'action.required',
      'provider.event',
      'action.responded',
      'output.text.delta',
      'output.text.done',
      'run.completed',
    ]);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
