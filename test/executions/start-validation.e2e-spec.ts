import { api, createConversation, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/** docs/api.md#executions: every body-shape error of POST /v1/executions is a 400 that creates nothing. */
describe('starting an execution: body shape (docs/api.md#executions)', () => {
  const app = useApp({ conversation: true });
  const valid = () => ({ conversationId: app.conversationId, provider: 'scripted', input: { text: 'hello' } });
  const post = (body: unknown) => api(app.baseUrl, 'POST', '/v1/executions', body);

  /** No failed request may leave anything behind in the conversation (runs after the cases). */
  const expectNothingCreated = async () => {
    const res = await api(app.baseUrl, 'GET', `/v1/conversations/${app.conversationId}`);
    expect(res.body.executions).toEqual([]);
  };

  const without = (key: string) => {
    const body: Record<string, unknown> = valid();
    delete body[key];
    return body;
  };

  const cases: [string, () => unknown][] = [
    ['an empty body', () => ({})],
    ['missing conversationId', () => without('conversationId')],
    ['missing provider', () => without('provider')],
    ['missing input', () => without('input')],
    ['missing input.text', () => ({ ...valid(), input: {} })],
    ['null conversationId', () => ({ ...valid(), conversationId: null })],
    ['null provider', () => ({ ...valid(), provider: null })],
    ['null input', () => ({ ...valid(), input: null })],
    ['null input.text', () => ({ ...valid(), input: { text: null } })],
    ['empty conversationId', () => ({ ...valid(), conversationId: '' })],
    ['empty provider', () => ({ ...valid(), provider: '' })],
    ['empty input.text', () => ({ ...valid(), input: { text: '' } })],
    ['numeric conversationId', () => ({ ...valid(), conversationId: 1 })],
    ['object conversationId', () => ({ ...valid(), conversationId: { id: app.conversationId } })],
    ['numeric provider', () => ({ ...valid(), provider: 1 })],
    ['array provider', () => ({ ...valid(), provider: ['scripted'] })],
    ['string input', () => ({ ...valid(), input: 'hello' })],
    ['array input', () => ({ ...valid(), input: [{ text: 'hello' }] })],
    ['numeric input.text', () => ({ ...valid(), input: { text: 5 } })],
    ['array input.text', () => ({ ...valid(), input: { text: ['hello'] } })],
    ['an unknown top-level field', () => ({ ...valid(), stream: true })],
    ['a misspelt optional field', () => ({ ...valid(), requiredCapability: [] })],
    ['an unknown field inside input', () => ({ ...valid(), input: { text: 'hello', image: 'x' } })],
    ['a null unknown field inside input', () => ({ ...valid(), input: { text: 'hello', images: null } })],
    ['string requiredCapabilities', () => ({ ...valid(), requiredCapabilities: 'output.text.stream' })],
    ['object requiredCapabilities', () => ({ ...valid(), requiredCapabilities: { 0: 'tools' } })],
    ['numbers in requiredCapabilities', () => ({ ...valid(), requiredCapabilities: ['tools', 1] })],
    ['null in requiredCapabilities', () => ({ ...valid(), requiredCapabilities: [null] })],
    ['objects in requiredCapabilities', () => ({ ...valid(), requiredCapabilities: [{ name: 'tools' }] })],
    ['nested arrays in requiredCapabilities', () => ({ ...valid(), requiredCapabilities: [['tools']] })],
    ['string config', () => ({ ...valid(), config: 'x' })],
    ['array config', () => ({ ...valid(), config: [] })],
    ['numeric config', () => ({ ...valid(), config: 0 })],
    ['numeric idempotencyKey', () => ({ ...valid(), idempotencyKey: 12 })],
    ['empty idempotencyKey', () => ({ ...valid(), idempotencyKey: '' })],
    ['a 256-character idempotencyKey', () => ({ ...valid(), idempotencyKey: 'k'.repeat(256) })],
    ['an idempotencyKey with a newline', () => ({ ...valid(), idempotencyKey: 'key\n1' })],
    ['an idempotencyKey with a tab', () => ({ ...valid(), idempotencyKey: 'key\t1' })],
    ['an idempotencyKey with DEL', () => ({ ...valid(), idempotencyKey: 'key\u007f' })],
    ['an idempotencyKey with NUL', () => ({ ...valid(), idempotencyKey: 'key\u0000' })],
    ['a non-ASCII idempotencyKey', () => ({ ...valid(), idempotencyKey: 'clé' })],
    ['an emoji idempotencyKey', () => ({ ...valid(), idempotencyKey: '😀' })],
  ];

  it.each(cases)('%s is 400 VALIDATION_ERROR', async (_, body) => {
    expectError(await post(body()), 400, 'VALIDATION_ERROR');
  });

  it('none of those requests created an execution', expectNothingCreated);

  it('the error message names the offending field', async () => {
    expect((await post(without('provider'))).body.error.message).toMatch(/provider/);
    expect((await post({ ...valid(), input: { text: 'x', image: 'y' } })).body.error.message).toMatch(/image/);
    expect((await post({ ...valid(), idempotencyKey: 'k'.repeat(256) })).body.error.message).toMatch(/idempotencyKey/);
  });

  describe('accepted edge values', () => {
    let other: string;
    beforeAll(async () => (other = await createConversation(app.baseUrl)));

    it('a 255-character printable idempotencyKey, including space and tilde, is accepted', async () => {
      const key = ` ~${'k'.repeat(253)}`;
      const res = await post({ ...valid(), conversationId: other, idempotencyKey: key });
      expect(res.status).toBe(201);
      expect(res.body.idempotencyKey).toBe(key);
    });

    it('null for the optional fields means left out', async () => {
      const res = await post({ ...valid(), conversationId: other, requiredCapabilities: null, config: null, idempotencyKey: null });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ requiredCapabilities: [], config: {}, idempotencyKey: null });
    });

    it('a single-character input text is accepted as is, whitespace and all', async () => {
      const res = await post({ ...valid(), conversationId: other, input: { text: ' ' } });
      expect(res.status).toBe(201);
      expect(res.body.input).toEqual({ text: ' ' });
    });
  });
});
