import { api, startApp, tempSqlitePath, useApp } from '../support/app-harness';
import { expectError, postExecution, respond, startScript, waitForAction } from '../support/execution-helpers';
import { sampleLiveness } from './liveness-probe';

const inputStep = (inputSchema: unknown) => ({ type: 'action', kind: 'input', prompt: 'value?', inputSchema });

/** A probe must answer within this while an attack runs (it answered after 9.8 s before). */
const LIVENESS_BOUND_MS = 400;

describe('client JSON Schemas cannot stall, fill or cross tenants', () => {
  const app = useApp({ conversation: true });

  it('a backtracking pattern answers in linear time while the probe stays fast', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [inputStep({ type: 'string', pattern: '^(a+)+$' })]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    const probe = sampleLiveness(app.baseUrl);
    const began = performance.now();
    // 35 characters held the native engine for over 30 s; RE2 does 5,000 in milliseconds.
    for (const length of [29, 35, 5000]) {
      const res = await respond(app.baseUrl, started.id, actionId, { value: `${'a'.repeat(length)}!` });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/pattern/);
    }
    const elapsed = performance.now() - began;
    const { worstMs } = await probe.stop();
    expect(elapsed).toBeLessThan(5000);
    expect(worstMs).toBeLessThan(LIVENESS_BOUND_MS);
    expect((await respond(app.baseUrl, started.id, actionId, { value: 'aaaa' })).status).toBe(200);
  });

  it('patterns RE2 cannot run in linear time are refused at the start', async () => {
    for (const pattern of ['^(a)\\1$', '^(?=a)a$']) {
      const res = await postExecution(app.baseUrl, {
        conversationId: app.conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: { script: [inputStep({ type: 'string', pattern })] },
      });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/inputSchema/);
    }
  });

  it('uniqueItems needs a small maxItems; an oversized or too deep schema is refused before compiling', async () => {
    const deep: Record<string, unknown> = { type: 'object' };
    let node = deep;
    for (let i = 0; i < 20; i++) node = (node.properties = { a: { type: 'object' } }).a as Record<string, unknown>;
    const big = { type: 'object', properties: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`property${i}`, { type: 'string' }])) };
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'array', uniqueItems: true }, /uniqueItems without a maxItems/],
      [{ type: 'array', uniqueItems: true, maxItems: 100000 }, /uniqueItems without a maxItems/],
      [deep, /nested deeper than 32/],
      [big, /at most 65536/],
      [{ $ref: 'urn:elsewhere' }, /inputSchema/],
      [{ $ref: '#/$defs/missing' }, /inputSchema/],
    ];
    for (const [schema, message] of cases) {
      const res = await postExecution(app.baseUrl, {
        conversationId: app.conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: { script: [inputStep(schema)] },
      });
      expectError(res, 400, 'VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(message);
    }
  });

  it('uniqueItems with a bounded maxItems still checks the answer', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [inputStep({ type: 'array', uniqueItems: true, maxItems: 1000 })]);
    const [actionId] = (await waitForAction(app.baseUrl, started.id)).pendingActionIds;
    const probe = sampleLiveness(app.baseUrl);
    expectError(await respond(app.baseUrl, started.id, actionId, { value: Array.from({ length: 100000 }, (_, i) => i) }), 400, 'VALIDATION_ERROR');
    expectError(await respond(app.baseUrl, started.id, actionId, { value: [1, 2, 1] }), 400, 'VALIDATION_ERROR');
    expect((await probe.stop()).worstMs).toBeLessThan(LIVENESS_BOUND_MS);
    expect((await respond(app.baseUrl, started.id, actionId, { value: [1, 2, 3] })).status).toBe(200);
  });

  it('a schema whose check would run for ever is cut off by the deadline, and checks go on after it', async () => {
    // Each definition tries the next twice and the last always fails: 2^40 paths.
    const $defs: Record<string, unknown> = { d40: { type: 'string', minLength: 10 } };
    for (let i = 0; i < 40; i++) $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    const probe = sampleLiveness(app.baseUrl);
    const res = await postExecution(app.baseUrl, {
      conversationId: app.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: { script: [inputStep({ $defs, $ref: '#/$defs/d0' })] },
    });
    let answered = res;
    if (res.status === 201) {
      const [actionId] = (await waitForAction(app.baseUrl, res.body.id)).pendingActionIds;
      answered = await respond(app.baseUrl, res.body.id, actionId, { value: 'a' });
    }
    expectError(answered, 400, 'VALIDATION_ERROR');
    expect(answered.body.error.message).toMatch(/could not be checked within 1000 ms/);
    expect((await probe.stop()).worstMs).toBeLessThan(LIVENESS_BOUND_MS);
    // The next check gets a fresh worker.
    const next = await startScript(app.baseUrl, app.conversationId, [inputStep({ type: 'integer' })]);
    const [actionId] = (await waitForAction(app.baseUrl, next.id)).pendingActionIds;
    expectError(await respond(app.baseUrl, next.id, actionId, { value: 'x' }), 400, 'VALIDATION_ERROR');
    expect((await respond(app.baseUrl, next.id, actionId, { value: 3 })).status).toBe(200);
  });

  it('hundreds of refused starts with large distinct schemas keep nothing', async () => {
    const rssBefore = process.memoryUsage().rss;
    const schema = (i: number) => ({
      type: 'object',
      title: `schema ${i}`,
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, p) => [`field${i}_${p}`, { type: 'string', minLength: 1, maxLength: 100 + p }])),
    });
    for (let i = 0; i < 300; i++) {
      const res = await postExecution(app.baseUrl, {
        conversationId: app.conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        requiredCapabilities: ['input.image'],
        config: { script: [inputStep(schema(i))] },
      });
      expectError(res, 422, 'CAPABILITY_UNSUPPORTED');
    }
    const grownMiB = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    // Before, 400 such starts (of ~100 KB schemas) grew the server by over 600 MiB.
    expect(grownMiB).toBeLessThan(150);
  });
});

describe('each tenant has its own schemas', () => {
  const KEYS = { acme: 'acme-key-0123456789abcdef', globex: 'globex-key-0123456789abcdef' };
  const env = { API_KEYS: `acme:${KEYS.acme},globex:${KEYS.globex}` };
  const as = (tenant: keyof typeof KEYS) => ({ authorization: `Bearer ${KEYS[tenant]}` });

  async function startWithSchema(baseUrl: string, tenant: keyof typeof KEYS, inputSchema: unknown) {
    const conversation = await api(baseUrl, 'POST', '/v1/conversations', {}, as(tenant));
    return api(
      baseUrl,
      'POST',
      '/v1/executions',
      { conversationId: conversation.body.id, provider: 'scripted', input: { text: 'x' }, config: { script: [inputStep(inputSchema)] } },
      as(tenant),
    );
  }

  async function pendingAction(baseUrl: string, tenant: keyof typeof KEYS, id: string): Promise<string> {
    for (let i = 0; i < 200; i++) {
      const res = await api(baseUrl, 'GET', `/v1/executions/${id}`, undefined, as(tenant));
      if (res.body.pendingActionIds?.length) return res.body.pendingActionIds[0];
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`execution ${id} never asked`);
  }

  const answer = (baseUrl: string, tenant: keyof typeof KEYS, id: string, actionId: string, value: unknown) =>
    api(baseUrl, 'POST', `/v1/executions/${id}/actions/${actionId}:respond`, { value }, as(tenant));

  it('colliding $ids never meet, before and after a restart, in either order', async () => {
    const sqlitePath = tempSqlitePath();
    for (const order of [
      ['acme', 'globex'],
      ['globex', 'acme'],
    ] as const) {
      const running = await startApp({ sqlitePath, env });
      try {
        const ids: Record<string, string> = {};
        for (const tenant of order) {
          const schema = tenant === 'acme' ? { $id: 'urn:example:x', type: 'string' } : { $id: 'urn:example:x', type: 'integer' };
          const res = await startWithSchema(running.baseUrl, tenant, schema);
          expect(res.status).toBe(201);
          ids[tenant] = res.body.id;
        }
        // A $ref to an $id of another schema does not resolve, whoever registered it first.
        expectError(await startWithSchema(running.baseUrl, 'globex', { $ref: 'urn:example:x' }), 400, 'VALIDATION_ERROR');
        const acmeAction = await pendingAction(running.baseUrl, 'acme', ids.acme);
        const globexAction = await pendingAction(running.baseUrl, 'globex', ids.globex);
        expectError(await answer(running.baseUrl, 'acme', ids.acme, acmeAction, 7), 400, 'VALIDATION_ERROR');
        expectError(await answer(running.baseUrl, 'globex', ids.globex, globexAction, 'seven'), 400, 'VALIDATION_ERROR');
        expect((await answer(running.baseUrl, 'acme', ids.acme, acmeAction, 'seven')).status).toBe(200);
        expect((await answer(running.baseUrl, 'globex', ids.globex, globexAction, 7)).status).toBe(200);
      } finally {
        await running.close();
      }
    }
  });
});

describe('a refused start appends nothing', () => {
  const app = useApp({ conversation: true });

  it('leaves the audit feed as it was', async () => {
    const before = await api(app.baseUrl, 'GET', '/v1/events');
    expectError(
      await postExecution(app.baseUrl, {
        conversationId: app.conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: { script: [inputStep({ type: 'array', uniqueItems: true })] },
      }),
      400,
      'VALIDATION_ERROR',
    );
    const after = await api(app.baseUrl, 'GET', '/v1/events');
    expect(after.body.events.length).toBe(before.body.events.length);
  });
});
