import { api } from '../support/app-harness';
import { listActions, replay, respond, waitForAction } from '../support/execution-helpers';
import { textAnswer, toolCallAnswer } from '../providers/support/openai-wire';
import { ended, useProviderApp } from '../providers/support/provider-app';

const LOOKUP = { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } };

/**
 * docs/api.md#usage-and-budgets against the loopback OpenAI-compatible server: the budget is
 * checked after each upstream response of the tool loop, and the model is on run.started.
 */
describe('a token budget in an LLM tool loop', () => {
  const ctx = useProviderApp((origin) => [{ id: 'oa', kind: 'openai-compatible', baseURL: `${origin}/v1`, apiKeyEnv: 'TEST_API_KEY', model: 'gpt-test' }]);

  const start = (body: Record<string, unknown>) =>
    api(ctx.baseUrl, 'POST', '/v1/executions', { conversationId: ctx.conversationId, provider: 'oa', input: { text: 'look it up' }, ...body });

  it('the response that passes the budget ends the loop: no further request, run.failed BUDGET_EXCEEDED with both responses’ usage', async () => {
    ctx.upstream.reply({ sse: toolCallAnswer([{ id: 'call_1', name: 'lookup', args: '{"q":"a"}' }], [20, 5]) });
    const res = await start({ config: { tools: [LOOKUP] }, budget: { maxTotalTokens: 30 } });
    expect(res.status).toBe(201);
    const id = res.body.id;
    const [actionId] = (await waitForAction(ctx.baseUrl, id)).pendingActionIds;

    ctx.upstream.reply({ sse: toolCallAnswer([{ id: 'call_2', name: 'lookup', args: '{"q":"b"}' }], [20, 5]) }, { sse: textAnswer(['never']) });
    expect((await respond(ctx.baseUrl, id, actionId, { value: { hit: 1 } })).status).toBe(200);
    const execution = await ended(ctx, id);
    expect(execution).toMatchObject({ status: 'failed', error: { code: 'BUDGET_EXCEEDED' }, budget: { maxTotalTokens: 30 } });
    expect(ctx.upstream.requests).toHaveLength(2);
    // The second tool call never became an action.
    expect(await listActions(ctx.baseUrl, id)).toHaveLength(1);
    const events = await replay(ctx.baseUrl, id);
    expect(events[1].data).toEqual({ provider: 'oa', model: 'gpt-test' });
    expect(events.at(-1).data.usage).toEqual({ inputTokens: 40, outputTokens: 10 });
  });

  it('under the budget the loop completes, and usage groups by the model run.started names', async () => {
    ctx.upstream.reply({ sse: textAnswer(['fine'], [3, 1]) });
    const res = await start({ config: { model: 'gpt-other' }, budget: { maxTotalTokens: 30 } });
    expect(await ended(ctx, res.body.id)).toMatchObject({ status: 'completed' });
    const byModel = (await api(ctx.baseUrl, 'GET', '/v1/usage?groupBy=model')).body.groups;
    expect(byModel).toEqual([
      { key: 'gpt-other', inputTokens: 3, outputTokens: 1, executions: 1 },
      { key: 'gpt-test', inputTokens: 40, outputTokens: 10, executions: 1 },
    ]);
  });
});
