import { api, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { cancel, countOf, replay, startScript } from '../support/execution-helpers';

/**
 * docs/api.md#cancellation: concurrent cancels share one operation. The provider's cleanup running once is
 * observed through `providerCleanupError`: with cleanup "fail" and a slow cleanup, a cancel that
 * skipped the shared operation would append its own run.cancelled without the cleanup's error.
 * (src/executions/runner/cancel-once.spec.ts counts the cleanup calls directly.)
 */
describe('concurrent cancels (docs/api.md#cancellation)', () => {
  const app = useApp({ conversation: true });

  const cancelAll = (id: string, n: number) => Promise.all(Array.from({ length: n }, (_, i) => cancel(app.baseUrl, id, { reason: `cancel ${i}` })));

  it.each([
    ['ok', null],
    ['fail', 'scripted cleanup failed'],
  ])('20 concurrent cancels of a running execution (cleanup %s, 300 ms): all 200, identical, one run.cancelled', async (cleanup, cleanupError) => {
    const started = await startScript(
      app.baseUrl,
      app.conversationId,
      [
        { type: 'text', text: 'a ' },
        { type: 'delay', ms: 30000 },
        { type: 'text', text: 'b' },
      ],
      { cleanup, cleanupDelayMs: 300 },
    );
    await waitForExecution(app.baseUrl, started.id, (e) => e.lastSequence >= 3);

    const answers = await cancelAll(started.id, 20);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const first = answers[0].body;
    for (const answer of answers) expect(answer.body).toEqual(first);
    expect(first.status).toBe('cancelled');
    expect(first.cancellation).toEqual({ reason: expect.stringMatching(/^cancel \d+$/), providerCleanupError: cleanupError });

    const events = await replay(app.baseUrl, started.id);
    expect(countOf(events, 'run.cancelled')).toBe(1);
    expect(events[events.length - 1]).toMatchObject({ type: 'run.cancelled', data: first.cancellation });
    expect((await api(app.baseUrl, 'GET', `/v1/executions/${started.id}`)).body).toEqual(first);
  });

  it('20 concurrent cancels right after the start (possibly still queued): all 200, identical, cleanup once', async () => {
    const started = await startExecution(app.baseUrl, {
      conversationId: app.conversationId,
      config: { script: [{ type: 'delay', ms: 30000 }], cleanup: 'fail', cleanupDelayMs: 300 },
    });
    expect(started.status).toBe(201);
    const answers = await cancelAll(started.body.id, 20);
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    for (const answer of answers) expect(answer.body).toEqual(answers[0].body);
    expect(answers[0].body.cancellation.providerCleanupError).toBe('scripted cleanup failed');
    const events = await replay(app.baseUrl, started.body.id);
    expect(countOf(events, 'run.cancelled')).toBe(1);
    expect(events[events.length - 1].type).toBe('run.cancelled');
  });

  it('cancels arriving while the cleanup of the first is still running join it', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'delay', ms: 30000 }], {
      cleanup: 'fail',
      cleanupDelayMs: 300,
    });
    await waitForExecution(app.baseUrl, started.id, (e) => e.status === 'running');
    const first = cancel(app.baseUrl, started.id, { reason: 'first' });
    // Most likely the later cancels now arrive while the first one's 300 ms cleanup runs (the
    // store still says "running"); the assertions hold whichever order they land in.
    await new Promise((r) => setTimeout(r, 50));
    const later = await cancelAll(started.id, 10);
    const all = [await first, ...later];
    expect(all.map((a) => a.status)).toEqual(Array(11).fill(200));
    for (const answer of all) expect(answer.body).toEqual(all[0].body);
    expect(all[0].body.cancellation).toEqual({ reason: expect.stringMatching(/^(first|cancel \d+)$/), providerCleanupError: 'scripted cleanup failed' });
    expect(countOf(await replay(app.baseUrl, started.id), 'run.cancelled')).toBe(1);
  });
});
