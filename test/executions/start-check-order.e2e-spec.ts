import { api, createConversation, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { executionsOf } from '../support/execution-helpers';

/**
 * docs/api.md#executions and docs/api.md#capability-preflight: the checks of POST /v1/executions in their order — body shape 400 →
 * conversation 404 → provider 404 → provider config 400 → capability preflight 422 — each request
 * failing two checks at once, the first must win; and a failed request creates nothing.
 */
describe('starting an execution: order of checks and preflight (docs/api.md#executions, docs/api.md#capability-preflight)', () => {
  const app = useApp({ conversation: true });
  const MISSING_CONVERSATION = '0190f5d4-6b3e-7c3a-8f00-000000000000';
  const BAD_CONFIG = { script: [{ type: 'explode' }] };
  const post = (body: Record<string, unknown>) =>
    api(app.baseUrl, 'POST', '/v1/executions', { conversationId: app.conversationId, provider: 'scripted', input: { text: 'hi' }, ...body });

  describe('first failure wins', () => {
    it('body shape before conversation', async () => {
      expectError(await post({ conversationId: MISSING_CONVERSATION, input: { text: '' } }), 400, 'VALIDATION_ERROR');
      expectError(await post({ conversationId: MISSING_CONVERSATION, extra: 1 }), 400, 'VALIDATION_ERROR');
    });

    it('body shape before provider', async () => {
      expectError(await post({ provider: 'nope', requiredCapabilities: [1] }), 400, 'VALIDATION_ERROR');
      expectError(await post({ provider: 'nope', idempotencyKey: 'k'.repeat(256) }), 400, 'VALIDATION_ERROR');
    });

    it('body shape before preflight', async () => {
      expectError(await post({ requiredCapabilities: ['input.image'], config: 'x' }), 400, 'VALIDATION_ERROR');
    });

    it('conversation before provider, provider config and preflight', async () => {
      expectError(await post({ conversationId: MISSING_CONVERSATION, provider: 'nope' }), 404, 'NOT_FOUND');
      expectError(await post({ conversationId: MISSING_CONVERSATION, config: BAD_CONFIG }), 404, 'NOT_FOUND');
      expectError(await post({ conversationId: MISSING_CONVERSATION, requiredCapabilities: ['x'] }), 404, 'NOT_FOUND');
    });

    it('provider before provider config and preflight', async () => {
      expectError(await post({ provider: 'nope', config: BAD_CONFIG }), 404, 'PROVIDER_NOT_FOUND');
      expectError(await post({ provider: 'nope', requiredCapabilities: ['x'] }), 404, 'PROVIDER_NOT_FOUND');
    });

    it('provider config before preflight', async () => {
      expectError(await post({ config: BAD_CONFIG, requiredCapabilities: ['input.image'] }), 400, 'VALIDATION_ERROR');
    });

    it('each check alone gives its own answer', async () => {
      expectError(await post({ conversationId: MISSING_CONVERSATION }), 404, 'NOT_FOUND');
      expectError(await post({ provider: 'nope' }), 404, 'PROVIDER_NOT_FOUND');
      expectError(await post({ config: BAD_CONFIG }), 400, 'VALIDATION_ERROR');
      expectError(await post({ requiredCapabilities: ['x'] }), 422, 'CAPABILITY_UNSUPPORTED');
    });

    it('none of them created anything', async () => {
      expect(await executionsOf(app.baseUrl, app.conversationId)).toEqual([]);
    });
  });

  describe('capability preflight (docs/api.md#capability-preflight)', () => {
    it('lists every offending name with its advertised level or "absent", in request order', async () => {
      const res = await post({ requiredCapabilities: ['output.text.stream', 'input.image', 'x'] });
      expectError(res, 422, 'CAPABILITY_UNSUPPORTED');
      expect(res.body.error.details).toEqual({
        capabilities: [
          { name: 'input.image', level: 'unsupported' },
          { name: 'x', level: 'absent' },
        ],
      });
    });

    it('a duplicated offending name is reported once', async () => {
      const res = await post({ requiredCapabilities: ['x', 'x', 'input.image', 'x'] });
      expectError(res, 422, 'CAPABILITY_UNSUPPORTED');
      expect(res.body.error.details).toEqual({
        capabilities: [
          { name: 'x', level: 'absent' },
          { name: 'input.image', level: 'unsupported' },
        ],
      });
    });

    it('a failed preflight appends nothing', async () => {
      const fresh = await createConversation(app.baseUrl);
      expectError(await post({ conversationId: fresh, requiredCapabilities: ['input.image'] }), 422, 'CAPABILITY_UNSUPPORTED');
      expect(await executionsOf(app.baseUrl, fresh)).toEqual([]);
    });

    it.each([
      ['native', ['output.text.stream', 'cancellation']],
      ['emulated', ['tools']],
      ['degraded', ['output.structured']],
      [
        'every usable one',
        ['output.text.stream', 'actions.approval', 'actions.input', 'artifacts', 'cancellation', 'conversation.history', 'tools', 'output.structured'],
      ],
    ])('%s capabilities pass', async (_, requiredCapabilities) => {
      const res = await post({ requiredCapabilities });
      expect(res.status).toBe(201);
      expect(res.body.requiredCapabilities).toEqual(requiredCapabilities);
    });
  });

  describe('a request that fails a check does not use up its idempotency key', () => {
    it.each([
      ['422', { requiredCapabilities: ['input.image'] }, 422],
      ['400 config', { config: BAD_CONFIG }, 400],
      ['404 provider', { provider: 'nope' }, 404],
    ])('after a %s the key starts a new execution', async (_, failing, status) => {
      const key = `unused-after-${status}-${Math.random()}`;
      expect((await post({ ...failing, idempotencyKey: key })).status).toBe(status);
      const res = await post({ input: { text: 'a different request' }, idempotencyKey: key });
      expect(res.status).toBe(201);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect(res.body.idempotencyKey).toBe(key);
    });
  });
});
