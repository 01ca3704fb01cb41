import { nowIso } from '../../src/common/clock';
import { newId } from '../../src/common/ids';
import { EVENT_STORE, EventStore } from '../../src/event-store/event-store';
import { claimStream, requestHash } from '../../src/executions/commands/idempotency-claims';
import { api, createConversation, useApp } from '../support/app-harness';
import { countOf, executionsOf, expectError, postExecution, replay, waitForExecutionEnd } from '../support/execution-helpers';

describe('idempotency under concurrency, and a claimer that died before run.queued (docs/api.md#idempotency)', () => {
  const app = useApp();
  let store: EventStore;
  beforeAll(() => {
    store = app.app.get<EventStore>(EVENT_STORE);
  });

  it('20 concurrent starts with one key: one 201, nineteen 200 replayed, one execution', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const body = { conversationId, provider: 'scripted', input: { text: 'once only' }, idempotencyKey: 'race-key-1' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => postExecution(app.baseUrl, body)));

    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    const replayed = answers.filter((a) => a.status === 200);
    expect(replayed).toHaveLength(19);
    for (const a of replayed) expect(a.headers.get('idempotent-replayed')).toBe('true');
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size).toBe(1);
    // The 201 shows the state right after run.queued, whatever the run has done since.
    expect(answers.find((a) => a.status === 201)!.body).toMatchObject({ status: 'queued', lastSequence: 1 });

    const [id] = [...ids];
    const done = await waitForExecutionEnd(app.baseUrl, id);
    expect(done).toMatchObject({ status: 'completed', outputText: 'once only' });
    const events = await replay(app.baseUrl, id);
    expect(countOf(events, 'run.queued')).toBe(1);
    expect(countOf(events, 'run.started')).toBe(1);
    expect(await executionsOf(app.baseUrl, conversationId)).toEqual([expect.objectContaining({ id })]);
  });

  it("20 concurrent starts with one key and two different bodies: the winner's body gets its execution, the other 409", async () => {
    const conversationId = await createConversation(app.baseUrl);
    const bodyOf = (text: string) => ({ conversationId, provider: 'scripted', input: { text }, idempotencyKey: 'race-key-2' });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => postExecution(app.baseUrl, bodyOf(i % 2 ? 'odd' : 'even'))));

    const accepted = answers.filter((a) => a.status === 200 || a.status === 201);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(new Set(accepted.map((a) => a.body.id)).size).toBe(1);
    const winnerText = accepted[0].body.input.text;
    answers.forEach((a, i) => {
      if ((i % 2 ? 'odd' : 'even') === winnerText) expect([200, 201]).toContain(a.status);
      else expectError(a, 409, 'IDEMPOTENCY_CONFLICT');
    });
    expect(accepted).toHaveLength(10);
    expect(await executionsOf(app.baseUrl, conversationId)).toHaveLength(1);
  });

  /** Plays a process that claimed the key and died before appending run.queued (rule 3). */
  async function orphanClaim(tenantId: string, key: string, request: Parameters<typeof requestHash>[0]): Promise<string> {
    const executionId = newId();
    await store.append(
      claimStream(tenantId, key),
      [
        {
          type: 'idempotency.claimed',
          data: { requestHash: requestHash(request), executionId },
          occurredAt: nowIso(),
          metadata: { tenantId, schemaVersion: 1, correlationId: executionId, causationId: null },
        },
      ],
      'no_stream',
    );
    return executionId;
  }

  it('a claim without run.queued: an equivalent request gets 200 replayed with the claimed id, and the run completes', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const request = { conversationId, provider: 'scripted', input: { text: 'recovered run' }, requiredCapabilities: ['artifacts', 'tools'], config: {} };
    const claimedId = await orphanClaim('default', 'crash-key-1', request);
    // The claim alone is no execution.
    expectError(await api(app.baseUrl, 'GET', `/v1/executions/${claimedId}`), 404, 'NOT_FOUND');

    const res = await postExecution(app.baseUrl, {
      idempotencyKey: 'crash-key-1',
      input: { text: 'recovered run' },
      requiredCapabilities: ['tools', 'artifacts'],
      provider: 'scripted',
      conversationId,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('idempotent-replayed')).toBe('true');
    expect(res.body).toMatchObject({ id: claimedId, conversationId, idempotencyKey: 'crash-key-1', requiredCapabilities: ['tools', 'artifacts'] });

    const done = await waitForExecutionEnd(app.baseUrl, claimedId);
    expect(done).toMatchObject({ status: 'completed', outputText: 'recovered run' });
    const events = await replay(app.baseUrl, claimedId);
    expect(events[0]).toMatchObject({ sequence: 1, type: 'run.queued', data: { idempotencyKey: 'crash-key-1' } });
    expect(countOf(events, 'run.queued')).toBe(1);
    expect(await executionsOf(app.baseUrl, conversationId)).toEqual([expect.objectContaining({ id: claimedId })]);

    // From now on the key behaves as any used key.
    const again = await postExecution(app.baseUrl, { ...request, idempotencyKey: 'crash-key-1' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(done);
  });

  it('a claim without run.queued and 10 concurrent equivalent requests: one run.queued, one run, all 200 with the claimed id', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const request = { conversationId, provider: 'scripted', input: { text: 'one run' }, requiredCapabilities: [], config: {} };
    const claimedId = await orphanClaim('default', 'crash-key-2', request);
    const answers = await Promise.all(Array.from({ length: 10 }, () => postExecution(app.baseUrl, { ...request, idempotencyKey: 'crash-key-2' })));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.body.id))).toEqual(new Set([claimedId]));

    await waitForExecutionEnd(app.baseUrl, claimedId);
    const events = await replay(app.baseUrl, claimedId);
    expect(countOf(events, 'run.queued')).toBe(1);
    expect(countOf(events, 'run.started')).toBe(1);
    expect(countOf(events, 'run.completed')).toBe(1);
  });

  it('a claim without run.queued and a different request with its key: 409, and nothing is created', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const request = { conversationId, provider: 'scripted', input: { text: 'claimed' }, requiredCapabilities: [], config: {} };
    const claimedId = await orphanClaim('default', 'crash-key-3', request);
    expectError(await postExecution(app.baseUrl, { ...request, input: { text: 'other' }, idempotencyKey: 'crash-key-3' }), 409, 'IDEMPOTENCY_CONFLICT');
    expectError(await api(app.baseUrl, 'GET', `/v1/executions/${claimedId}`), 404, 'NOT_FOUND');
    expect(await executionsOf(app.baseUrl, conversationId)).toEqual([]);
  });
});
