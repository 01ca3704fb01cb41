import { api, createConversation, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { expectError, ISO_MS, UUID_V7 } from '../support/error-envelope';

/** docs/api.md#conversations: creating and reading conversations. */
describe('conversations (docs/api.md#conversations)', () => {
  const app = useApp();
  const create = (body: unknown) => api(app.baseUrl, 'POST', '/v1/conversations', body);

  describe('create', () => {
    it('answers 201 with the full Conversation, and GET returns the same resource', async () => {
      const metadata = { team: 'core', nested: { list: [1, 'two', null, { deep: true }], n: 1.5 }, empty: {}, ключ: 'значение' };
      const res = await create({ title: 'Quarterly report', metadata });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID_V7),
        title: 'Quarterly report',
        metadata,
        createdAt: expect.stringMatching(ISO_MS),
        executions: [],
      });
      expect(Object.keys(res.body)).toEqual(['id', 'title', 'metadata', 'createdAt', 'executions']);
      const got = await api(app.baseUrl, 'GET', `/v1/conversations/${res.body.id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(res.body);
      // Metadata comes back with the same keys in the same order.
      expect(JSON.stringify(got.body.metadata)).toBe(JSON.stringify(metadata));
    });

    it('keeps metadata keys named like Object methods, and drops __proto__, constructor and prototype at any depth', async () => {
      const sent =
        '{"metadata":{"toString":"x","valueOf":{"hasOwnProperty":1},"__proto__":{"polluted":1},"nested":{"constructor":{"prototype":{"polluted":1}},"list":[{"prototype":2,"ok":3}]}}}';
      const res = await create(sent);
      expect(res.status).toBe(201);
      const expected = '{"toString":"x","valueOf":{"hasOwnProperty":1},"nested":{"list":[{"ok":3}]}}';
      expect(JSON.stringify(res.body.metadata)).toBe(expected);
      const got = await api(app.baseUrl, 'GET', `/v1/conversations/${res.body.id}`);
      expect(JSON.stringify(got.body.metadata)).toBe(expected);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('drops those keys when \\u escapes spell them too, and keeps them as plain values', async () => {
      // The parser skips the walk for text that names none of them without escapes (http/json-body.ts).
      const sent = '{"metadata":{"\\u005f_proto__":{"polluted":1},"a":{"constr\\u0075ctor":1,"ok":"constructor"},"b":"__proto__"}}';
      const res = await create(sent);
      expect(res.status).toBe(201);
      expect(JSON.stringify(res.body.metadata)).toBe('{"a":{"ok":"constructor"},"b":"__proto__"}');
      const plain = await create('{"metadata":{"ok":"prototype","list":["__proto__"]}}');
      expect(JSON.stringify(plain.body.metadata)).toBe('{"ok":"prototype","list":["__proto__"]}');
    });

    it('an absent title is null and absent metadata is {}', async () => {
      const res = await create({});
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: null, metadata: {}, executions: [] });
    });

    it('null means the same as leaving it out', async () => {
      const res = await create({ title: null, metadata: null });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: null, metadata: {} });
      const got = await api(app.baseUrl, 'GET', `/v1/conversations/${res.body.id}`);
      expect(got.body).toMatchObject({ title: null, metadata: {} });
    });

    it('ids are distinct and sort by creation time', async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await createConversation(app.baseUrl));
      expect(new Set(ids).size).toBe(5);
      expect([...ids].sort()).toEqual(ids);
    });

    it('a title counts code points: 200 emoji are fine, 201 are not', async () => {
      const ok = await create({ title: '😀'.repeat(200) });
      expect(ok.status).toBe(201);
      expect(ok.body.title).toBe('😀'.repeat(200));
      expectError(await create({ title: '😀'.repeat(201) }), 400, 'VALIDATION_ERROR');
      expect((await create({ title: 'a'.repeat(200) })).status).toBe(201);
      expectError(await create({ title: 'a'.repeat(201) }), 400, 'VALIDATION_ERROR');
      expect((await create({ title: 'x' })).status).toBe(201);
    });

    it.each([
      ['an empty title', { title: '' }],
      ['a numeric title', { title: 5 }],
      ['a boolean title', { title: true }],
      ['an object title', { title: { text: 'x' } }],
      ['an array title', { title: ['x'] }],
      ['string metadata', { metadata: 'x' }],
      ['array metadata', { metadata: [] }],
      ['numeric metadata', { metadata: 1 }],
      ['an unknown field', { name: 'x' }],
      ['an unknown field beside valid ones', { title: 'x', metadata: {}, executions: [] }],
      ['a client-chosen id', { id: 'mine' }],
    ])('%s is 400 VALIDATION_ERROR', async (_, body) => {
      expectError(await create(body), 400, 'VALIDATION_ERROR');
    });
  });

  describe('get', () => {
    it.each(['unknown', '0190f5d4-6b3e-7c3a-8f00-000000000000', 'abc:unknown', '%E2%9C%93', '1'])('an unknown id %p is 404 NOT_FOUND', async (id) => {
      expectError(await api(app.baseUrl, 'GET', `/v1/conversations/${id}`), 404, 'NOT_FOUND');
    });

    it('an execution id is not a conversation id', async () => {
      const conversationId = await createConversation(app.baseUrl);
      const execution = await startExecution(app.baseUrl, { conversationId });
      expectError(await api(app.baseUrl, 'GET', `/v1/conversations/${execution.body.id}`), 404, 'NOT_FOUND');
      expectError(await api(app.baseUrl, 'GET', `/v1/executions/${conversationId}`), 404, 'NOT_FOUND');
      await waitForExecution(app.baseUrl, execution.body.id);
    });

    it('lists its executions oldest first with their status, and only its own', async () => {
      const conversationId = await createConversation(app.baseUrl);
      const other = await createConversation(app.baseUrl);
      const first = await startExecution(app.baseUrl, { conversationId });
      const elsewhere = await startExecution(app.baseUrl, { conversationId: other });
      const second = await startExecution(app.baseUrl, { conversationId, config: { script: [{ type: 'fail', message: 'no' }] } });
      const third = await startExecution(app.baseUrl, { conversationId, config: { script: [{ type: 'delay', ms: 30000 }] } });
      for (const e of [first, second, elsewhere]) await waitForExecution(app.baseUrl, e.body.id);
      await waitForExecution(app.baseUrl, third.body.id, (e) => e.status === 'running');

      const res = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
      expect(res.status).toBe(200);
      expect(res.body.executions).toEqual([
        { id: first.body.id, status: 'completed', provider: 'scripted', createdAt: first.body.createdAt },
        { id: second.body.id, status: 'failed', provider: 'scripted', createdAt: second.body.createdAt },
        { id: third.body.id, status: 'running', provider: 'scripted', createdAt: third.body.createdAt },
      ]);
      for (const e of res.body.executions) expect(Object.keys(e)).toEqual(['id', 'status', 'provider', 'createdAt']);

      await api(app.baseUrl, 'POST', `/v1/executions/${third.body.id}:cancel`, {});
      const after = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
      expect(after.body.executions.map((e: { status: string }) => e.status)).toEqual(['completed', 'failed', 'cancelled']);
      const otherRes = await api(app.baseUrl, 'GET', `/v1/conversations/${other}`);
      expect(otherRes.body.executions.map((e: { id: string }) => e.id)).toEqual([elsewhere.body.id]);
    });

    it('shows a new execution right after it is created (read-your-writes)', async () => {
      const conversationId = await createConversation(app.baseUrl);
      for (let i = 0; i < 3; i++) {
        const started = await startExecution(app.baseUrl, { conversationId });
        const res = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
        expect(res.body.executions).toHaveLength(i + 1);
        expect(res.body.executions[i].id).toBe(started.body.id);
      }
    });
  });
});
