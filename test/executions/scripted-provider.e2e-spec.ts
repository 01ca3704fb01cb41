import { api, createConversation, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/** docs/api.md#the-scripted-provider: the scripted provider's echo, its text/delay/providerEvent/fail steps, and config shape. */
describe('the scripted provider (docs/api.md#the-scripted-provider)', () => {
  const app = useApp({ conversation: true });

  /** Runs to the end and answers the execution with its events as [type, data] pairs. */
  const run = async (body: Record<string, unknown>) => {
    const started = await startExecution(app.baseUrl, { conversationId: app.conversationId, ...body });
    expect(started.status).toBe(201);
    const execution = await waitForExecution(app.baseUrl, started.body.id);
    const replay = await api(app.baseUrl, 'GET', `/v1/executions/${started.body.id}/events`);
    const pairs = replay.body.events.map((e: { type: string; data: unknown }) => [e.type, e.data]);
    return { execution, pairs, events: replay.body.events };
  };
  const queuedAndStarted = (pairs: unknown[][]) => {
    expect(pairs[0][0]).toBe('run.queued');
    expect(pairs[1]).toEqual(['run.started', { provider: 'scripted' }]);
    return pairs.slice(2);
  };

  describe('echo (no script)', () => {
    it('splits after each space: "hello brave new world" gives four deltas', async () => {
      const { execution, pairs } = await run({ input: { text: 'hello brave new world' } });
      expect(queuedAndStarted(pairs)).toEqual([
        ['output.text.delta', { delta: 'hello ' }],
        ['output.text.delta', { delta: 'brave ' }],
        ['output.text.delta', { delta: 'new ' }],
        ['output.text.delta', { delta: 'world' }],
        ['output.text.done', { text: 'hello brave new world' }],
        ['run.completed', { usage: null }],
      ]);
      expect(execution).toMatchObject({ status: 'completed', outputText: 'hello brave new world', lastSequence: 8 });
    });

    it('one word is one delta; a trailing space stays in it', async () => {
      const { pairs } = await run({ input: { text: 'single ' } });
      expect(queuedAndStarted(pairs)).toEqual([
        ['output.text.delta', { delta: 'single ' }],
        ['output.text.done', { text: 'single ' }],
        ['run.completed', { usage: null }],
      ]);
    });

    it('consecutive spaces each end a delta, and non-ASCII text passes through', async () => {
      const { pairs } = await run({ input: { text: 'a  ünï 😀' } });
      expect(queuedAndStarted(pairs).map((p) => p[1])).toEqual([
        { delta: 'a ' },
        { delta: ' ' },
        { delta: 'ünï ' },
        { delta: '😀' },
        { text: 'a  ünï 😀' },
        { usage: null },
      ]);
    });
  });

  describe('script steps', () => {
    it('produce exactly their events, in order', async () => {
      const { execution, pairs } = await run({
        config: {
          script: [
            { type: 'text', text: 'Hi' },
            { type: 'providerEvent', name: 'tick', payload: { n: 1, nested: { ok: true } } },
            { type: 'delay', ms: 5 },
            { type: 'providerEvent', name: 'tock' },
            { type: 'providerEvent', name: 'tack', payload: null },
            { type: 'delay', ms: 0 },
            { type: 'text', text: ' there' },
          ],
        },
      });
      expect(queuedAndStarted(pairs)).toEqual([
        ['output.text.delta', { delta: 'Hi' }],
        ['provider.event', { namespace: 'scripted', name: 'tick', payload: { n: 1, nested: { ok: true } } }],
        ['provider.event', { namespace: 'scripted', name: 'tock', payload: {} }],
        ['provider.event', { namespace: 'scripted', name: 'tack', payload: {} }],
        ['output.text.delta', { delta: ' there' }],
        ['output.text.done', { text: 'Hi there' }],
        ['run.completed', { usage: null }],
      ]);
      expect(execution).toMatchObject({ status: 'completed', outputText: 'Hi there', error: null, lastSequence: 9 });
    });

    it('output.text.done and run.completed are adjacent and end the stream', async () => {
      const { events } = await run({
        config: {
          script: [
            { type: 'text', text: 'x' },
            { type: 'text', text: 'y' },
          ],
        },
      });
      const done = events.findIndex((e: { type: string }) => e.type === 'output.text.done');
      expect(events[done + 1].type).toBe('run.completed');
      expect(done + 2).toBe(events.length);
    });

    it('no text means no output.text.done and outputText null', async () => {
      const { execution, pairs } = await run({ input: { text: 'ignored' }, config: { script: [{ type: 'providerEvent', name: 'only' }] } });
      expect(queuedAndStarted(pairs)).toEqual([
        ['provider.event', { namespace: 'scripted', name: 'only', payload: {} }],
        ['run.completed', { usage: null }],
      ]);
      expect(execution).toMatchObject({ status: 'completed', outputText: null });
    });

    it('an empty script completes at once', async () => {
      const { pairs } = await run({ config: { script: [] } });
      expect(queuedAndStarted(pairs)).toEqual([['run.completed', { usage: null }]]);
    });

    it('a null script means no script: the input is echoed', async () => {
      const { execution } = await run({ input: { text: 'echo me' }, config: { script: null } });
      expect(execution.outputText).toBe('echo me');
    });

    it('fail ends the run with run.failed PROVIDER_ERROR; partial text stays in its deltas only', async () => {
      const { execution, pairs } = await run({
        config: {
          script: [
            { type: 'text', text: 'partial' },
            { type: 'fail', message: 'model exploded' },
            { type: 'text', text: 'never' },
          ],
        },
      });
      expect(queuedAndStarted(pairs)).toEqual([
        ['output.text.delta', { delta: 'partial' }],
        ['run.failed', { error: { code: 'PROVIDER_ERROR', message: 'model exploded' }, usage: null }],
      ]);
      expect(execution).toMatchObject({ status: 'failed', outputText: null, error: { code: 'PROVIDER_ERROR', message: 'model exploded' } });
    });
  });

  describe('config shape errors are 400 before anything is appended', () => {
    const script = (...steps: unknown[]) => ({ script: steps });
    const cases: [string, unknown][] = [
      ['an unknown config key', { scrip: [] }],
      ['an unknown config key beside a script', { script: [], speed: 2 }],
      ['a script that is not an array', { script: { type: 'text', text: 'x' } }],
      ['a step that is not an object', script('text')],
      ['an unknown step type', script({ type: 'sing', text: 'la' })],
      ['a step without a type', script({ text: 'x' })],
      ['a text step without text', script({ type: 'text' })],
      ['a text step with empty text', script({ type: 'text', text: '' })],
      ['a text step with numeric text', script({ type: 'text', text: 5 })],
      ['an unknown field on a step', script({ type: 'text', text: 'x', bold: true })],
      ['a delay without ms', script({ type: 'delay' })],
      ['a delay of 60001 ms', script({ type: 'delay', ms: 60001 })],
      ['a delay of 1.5 ms', script({ type: 'delay', ms: 1.5 })],
      ['a negative delay', script({ type: 'delay', ms: -1 })],
      ['a delay given as a string', script({ type: 'delay', ms: '10' })],
      ['a providerEvent without name', script({ type: 'providerEvent' })],
      ['a providerEvent with a string payload', script({ type: 'providerEvent', name: 'e', payload: 'p' })],
      ['a providerEvent with an array payload', script({ type: 'providerEvent', name: 'e', payload: [] })],
      ['a fail step without message', script({ type: 'fail' })],
      ['a fail step with a numeric message', script({ type: 'fail', message: 1 })],
      ['a bad step after good ones', script({ type: 'text', text: 'ok' }, { type: 'delay', ms: 60001 })],
      ['an unknown cleanup mode', { cleanup: 'maybe' }],
      ['a cleanupDelayMs over 10000', { cleanupDelayMs: 10001 }],
      ['a fractional cleanupDelayMs', { cleanupDelayMs: 0.5 }],
    ];

    it.each(cases)('%s', async (_, config) => {
      expectError(await startExecution(app.baseUrl, { conversationId: shapeConversation, config }), 400, 'VALIDATION_ERROR');
    });

    let shapeConversation: string;
    beforeAll(async () => (shapeConversation = await createConversation(app.baseUrl)));

    it('none of them created an execution', async () => {
      const res = await api(app.baseUrl, 'GET', `/v1/conversations/${shapeConversation}`);
      expect(res.body.executions).toEqual([]);
    });

    it('the limits themselves are accepted: delay 0 and 60000, cleanupDelayMs 0 and 10000', async () => {
      const res = await startExecution(app.baseUrl, {
        conversationId: app.conversationId,
        config: {
          script: [
            { type: 'delay', ms: 0 },
            { type: 'delay', ms: 60000 },
          ],
          cleanup: 'fail',
          cleanupDelayMs: 0,
        },
      });
      expect(res.status).toBe(201);
      const cancelled = await api(app.baseUrl, 'POST', `/v1/executions/${res.body.id}:cancel`, {});
      expect(cancelled.body.status).toBe('cancelled');
      const other = await startExecution(app.baseUrl, { conversationId: app.conversationId, config: { script: [], cleanupDelayMs: 10000, cleanup: 'ok' } });
      expect(other.status).toBe(201);
      await waitForExecution(app.baseUrl, other.body.id);
    });
  });
});
