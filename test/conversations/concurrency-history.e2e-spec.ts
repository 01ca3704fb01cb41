import { api } from '../support/app-harness';
import { textAnswer } from '../providers/support/openai-wire';
import { ended, useProviderApp } from '../providers/support/provider-app';

/**
 * docs/api.md#concurrency: an enqueued execution starts after those before it have ended, so the
 * history its provider receives is theirs, complete and in creation order (a loopback
 * OpenAI-compatible upstream records what each call sent).
 */
describe('enqueue and conversation history', () => {
  const ctx = useProviderApp((origin) => [{ id: 'oa', kind: 'openai-compatible', baseURL: `${origin}/v1`, model: 'gpt-test' }]);

  it('three enqueue starts sent at once: each call carries every earlier turn, in order', async () => {
    const conversationId = (await api(ctx.baseUrl, 'POST', '/v1/conversations', { concurrency: 'enqueue' })).body.id;
    ctx.upstream.reply({ sse: textAnswer(['one']) }, { sse: textAnswer(['two']) }, { sse: textAnswer(['three']) });
    const answers = await Promise.all(
      ['first', 'second', 'third'].map((text) => api(ctx.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'oa', input: { text } })),
    );
    expect(answers.map((r) => r.status)).toEqual([201, 201, 201]);
    const listed = (await api(ctx.baseUrl, 'GET', `/v1/conversations/${conversationId}`)).body.executions.map((e: any) => e.id);
    for (const id of listed) expect((await ended(ctx, id)).status).toBe('completed');
    const inputs = await Promise.all(listed.map(async (id: string) => (await api(ctx.baseUrl, 'GET', `/v1/executions/${id}`)).body.input.text));
    const outputs = ['one', 'two', 'three'];
    const sent = ctx.upstream.requests.map((r) => r.body.messages);
    expect(sent).toEqual([
      [{ role: 'user', content: inputs[0] }],
      [
        { role: 'user', content: inputs[0] },
        { role: 'assistant', content: outputs[0] },
        { role: 'user', content: inputs[1] },
      ],
      [
        { role: 'user', content: inputs[0] },
        { role: 'assistant', content: outputs[0] },
        { role: 'user', content: inputs[1] },
        { role: 'assistant', content: outputs[1] },
        { role: 'user', content: inputs[2] },
      ],
    ]);
  });
});
