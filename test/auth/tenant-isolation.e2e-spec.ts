import { api, JsonResponse, readSse, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/**
 * docs/api.md#authentication-and-tenants: each tenant sees only its own resources, and another tenant's id answers exactly
 * like an id that does not exist (404 NOT_FOUND, never 403) — on every route, SSE included.
 */
const ACME = { authorization: 'Bearer acme-secret-key-0123456789' };
const GLOBEX = { authorization: 'Bearer globex-secret-key-0123456789' };
type Who = typeof ACME;

describe('tenant isolation (docs/api.md#authentication-and-tenants)', () => {
  const app = useApp({ env: { API_KEYS: 'acme:acme-secret-key-0123456789,globex:globex-secret-key-0123456789' } });
  const as = (who: Who, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    api(app.baseUrl, method, path, body, { ...who, ...headers });

  let conversationId: string;
  let executionId: string;
  let actionId: string;
  const script = [
    { type: 'artifact', name: 'report.txt', mediaType: 'text/plain' },
    { type: 'action', kind: 'approval', prompt: 'ship it?' },
    { type: 'text', text: 'shipped' },
  ];
  const startRequest = () => ({ conversationId, provider: 'scripted', input: { text: 'go' }, config: { script }, idempotencyKey: 'shared-key' });

  beforeAll(async () => {
    conversationId = (await as(ACME, 'POST', '/v1/conversations', { title: 'acme only' })).body.id;
    const started = await as(ACME, 'POST', '/v1/executions', startRequest());
    expect(started.status).toBe(201);
    executionId = started.body.id;
    const deadline = Date.now() + 10000;
    for (;;) {
      const execution = (await as(ACME, 'GET', `/v1/executions/${executionId}`)).body;
      if (execution.status === 'requires_action') {
        actionId = execution.pendingActionIds[0];
        break;
      }
      if (Date.now() > deadline) throw new Error(`execution is ${execution.status}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  /** Another tenant's id and an id that does not exist get the same answer, up to the id itself. */
  async function expectHidden(res: JsonResponse, path: (id: string) => string, method = 'GET', body?: unknown, headers = {}) {
    expectError(res, 404, 'NOT_FOUND');
    const unknown = await as(GLOBEX, method, path('0190f5d4-6b3e-7c3a-8f00-000000000000'), body, headers);
    expect(res.body.error.message.replaceAll(executionId, 'ID').replaceAll(conversationId, 'ID')).toBe(
      unknown.body.error.message.replaceAll('0190f5d4-6b3e-7c3a-8f00-000000000000', 'ID'),
    );
  }

  it('the owner sees its resources (the baseline for every check below)', async () => {
    for (const path of [`/v1/conversations/${conversationId}`, `/v1/executions/${executionId}`, `/v1/executions/${executionId}/events`]) {
      expect((await as(ACME, 'GET', path)).status).toBe(200);
    }
    expect((await as(ACME, 'GET', `/v1/executions/${executionId}/artifacts`)).body.artifacts).toHaveLength(1);
    expect((await as(ACME, 'GET', `/v1/executions/${executionId}/actions`)).body.actions).toHaveLength(1);
  });

  it('conversation: read, and start an execution in it', async () => {
    await expectHidden(await as(GLOBEX, 'GET', `/v1/conversations/${conversationId}`), (id) => `/v1/conversations/${id}`);
    const start = await as(GLOBEX, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'x' } });
    expectError(start, 404, 'NOT_FOUND');
  });

  it('execution, its events (JSON, paged), actions and artifacts', async () => {
    for (const suffix of ['', '/events', '/events?after=1&limit=2', '/actions', '/artifacts']) {
      await expectHidden(await as(GLOBEX, 'GET', `/v1/executions/${executionId}${suffix}`), (id) => `/v1/executions/${id}${suffix}`);
    }
  });

  it('the SSE stream, with and without Last-Event-ID, while the owner is streaming it', async () => {
    const owner = readSse(app.baseUrl, `/v1/executions/${executionId}/events`, ACME);
    for (const headers of [{}, { 'last-event-id': '1' }] as Record<string, string>[]) {
      const stream = { accept: 'text/event-stream', ...headers };
      await expectHidden(
        await as(GLOBEX, 'GET', `/v1/executions/${executionId}/events`, undefined, stream),
        (id) => `/v1/executions/${id}/events`,
        'GET',
        undefined,
        stream,
      );
    }
    // The owner's stream is untouched and runs to the end once the owner answers.
    expect((await as(ACME, 'POST', `/v1/executions/${executionId}/actions/${actionId}:respond`, { decision: 'approve' })).status).toBe(200);
    const seen = await owner;
    expect(seen.status).toBe(200);
    expect(
      seen.messages
        .filter((m) => m.event)
        .map((m) => m.event)
        .slice(-1),
    ).toEqual(['run.completed']);
  });

  /** Reads an SSE response for `ms`, whatever it is (the audit feed never ends on its own). */
  async function sseFor(who: Who, path: string, ms: number): Promise<{ status: number; text: string }> {
    const controller = new AbortController();
    const res = await fetch(`${app.baseUrl}${path}`, { headers: { ...who, accept: 'text/event-stream' }, signal: controller.signal });
    const timer = setTimeout(() => controller.abort(), ms);
    let text = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += Buffer.from(chunk).toString('utf8');
    } catch (error) {
      if ((error as Error).name !== 'AbortError') throw error;
    } finally {
      clearTimeout(timer);
    }
    return { status: res.status, text };
  }

  it("search and the audit feed (JSON and SSE) show only the caller's own", async () => {
    const own = (await as(GLOBEX, 'POST', '/v1/conversations', { title: 'globex only' })).body.id;
    const mine = (await as(GLOBEX, 'POST', '/v1/executions', { conversationId: own, provider: 'scripted', input: { text: 'g' } })).body.id;
    const searched = await as(GLOBEX, 'GET', '/v1/executions');
    expect(searched.status).toBe(200);
    const byConversation = await as(GLOBEX, 'GET', `/v1/executions?conversationId=${conversationId}`);
    const feed = await as(GLOBEX, 'GET', '/v1/events');
    expect(feed.status).toBe(200);
    const stream = await sseFor(GLOBEX, '/v1/events', 700);
    expect(stream.status).toBe(200);
    // Positive control: the caller's own resources are there, so an empty answer cannot pass.
    expect(searched.text).toContain(mine);
    expect(feed.text).toContain(mine);
    expect(stream.text).toContain(mine);
    for (const text of [searched.text, byConversation.text, feed.text, stream.text]) {
      expect(text).not.toContain(executionId);
      expect(text).not.toContain(conversationId);
    }
    // And the other way round.
    const acmeFeed = await as(ACME, 'GET', '/v1/events');
    expect(acmeFeed.text).toContain(executionId);
    expect(acmeFeed.text).not.toContain(mine);
    expect((await as(ACME, 'GET', '/v1/executions')).text).not.toContain(mine);
  });

  describe("commands on another tenant's execution", () => {
    let pending: string;
    let pendingAction: string;
    beforeAll(async () => {
      const started = await as(ACME, 'POST', '/v1/executions', { ...startRequest(), idempotencyKey: null });
      pending = started.body.id;
      for (;;) {
        const execution = (await as(ACME, 'GET', `/v1/executions/${pending}`)).body;
        if (execution.status === 'requires_action') {
          pendingAction = execution.pendingActionIds[0];
          break;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    });

    it('respond is 404 NOT_FOUND (not ACTION_NOT_FOUND) and changes nothing', async () => {
      const res = await as(GLOBEX, 'POST', `/v1/executions/${pending}/actions/${pendingAction}:respond`, { decision: 'approve' });
      expectError(res, 404, 'NOT_FOUND');
      const actions = (await as(ACME, 'GET', `/v1/executions/${pending}/actions`)).body.actions;
      expect(actions[0]).toMatchObject({ id: pendingAction, status: 'pending' });
    });

    it('cancel is 404 and the execution goes on', async () => {
      expectError(await as(GLOBEX, 'POST', `/v1/executions/${pending}:cancel`, { reason: 'not mine' }), 404, 'NOT_FOUND');
      expect((await as(ACME, 'GET', `/v1/executions/${pending}`)).body.status).toBe('requires_action');
      const events = (await as(ACME, 'GET', `/v1/executions/${pending}/events`)).body.events;
      expect(events.map((e: { type: string }) => e.type)).not.toContain('run.cancelled');
      expect((await as(ACME, 'POST', `/v1/executions/${pending}:cancel`, {})).body.status).toBe('cancelled');
    });
  });

  it('an idempotency key belongs to its tenant: the same key elsewhere creates a separate execution', async () => {
    const globexConversation = (await as(GLOBEX, 'POST', '/v1/conversations', {})).body.id;
    const request = { conversationId: globexConversation, provider: 'scripted', input: { text: 'other' }, idempotencyKey: 'shared-key' };
    const first = await as(GLOBEX, 'POST', '/v1/executions', request);
    expect(first.status).toBe(201);
    expect(first.body.id).not.toBe(executionId);
    const again = await as(GLOBEX, 'POST', '/v1/executions', request);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    // The owner's key still answers with the owner's execution.
    const replay = await as(ACME, 'POST', '/v1/executions', startRequest());
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.id).toBe(executionId);
    // Each conversation lists only its own tenant's executions.
    const listed = (await as(GLOBEX, 'GET', `/v1/conversations/${globexConversation}`)).body.executions.map((e: { id: string }) => e.id);
    expect(listed).toEqual([first.body.id]);
    expectError(await as(ACME, 'GET', `/v1/executions/${first.body.id}`), 404, 'NOT_FOUND');
  });
});
