import { api } from '../support/app-harness';
import { cancel, expectError, listActions, replay, respond, typesOf, waitForAction } from '../support/execution-helpers';
import { textAnswer, toolCallAnswer } from './support/openai-wire';
import { ended, start, useProviderApp } from './support/provider-app';

const WEATHER = {
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  resultSchema: { type: 'object', properties: { tempC: { type: 'number' } }, required: ['tempC'] },
};
const CLOCK = { name: 'get_time', parameters: { type: 'object', properties: {} } };

describe('openai-compatible provider: tools as actions and config checks', () => {
  const ctx = useProviderApp((origin) => [
    {
      id: 'oa',
      kind: 'openai-compatible',
      baseURL: `${origin}/v1`,
      apiKeyEnv: 'TEST_API_KEY',
      model: 'gpt-test',
      defaults: { system: 'You are terse.' },
    },
    { id: 'local', kind: 'openai-compatible', baseURL: `${origin}/v1`, model: 'llama3', supports: { tools: false } },
  ]);

  it('a tool call becomes an input action; its answer goes back as the tool message', async () => {
    ctx.upstream.reply({ sse: toolCallAnswer([{ id: 'call_1', name: 'get_weather', args: '{"city":"Paris"}' }], [20, 5], 'Let me check. ') });
    const id = await start(ctx, 'oa', 'Weather in Paris?', { tools: [WEATHER] });
    const [actionId] = (await waitForAction(ctx.baseUrl, id)).pendingActionIds;
    const [action] = await listActions(ctx.baseUrl, id);
    expect(action).toMatchObject({
      kind: 'input',
      prompt: expect.stringContaining('get_weather'),
      inputSchema: WEATHER.resultSchema,
      tool: { callId: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
    });
    expect(ctx.upstream.requests[0].body.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: WEATHER.description, parameters: WEATHER.parameters } },
    ]);
    // The result schema holds: a wrong value is refused before the model hears anything.
    expectError(await respond(ctx.baseUrl, id, actionId, { value: { tempC: 'warm' } }), 400, 'VALIDATION_ERROR');

    ctx.upstream.reply({ sse: textAnswer(['21 °C.'], [40, 4]) });
    expect((await respond(ctx.baseUrl, id, actionId, { value: { tempC: 21 } })).status).toBe(200);
    const execution = await ended(ctx, id);
    expect(execution).toMatchObject({ status: 'completed', outputText: 'Let me check. 21 °C.' });
    expect(ctx.upstream.requests[1].body.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Let me check. ',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"tempC":21}' },
    ]);
    // Usage of both upstream requests.
    expect((await replay(ctx.baseUrl, id)).at(-1).data.usage).toEqual({ inputTokens: 60, outputTokens: 9 });
  });

  it('parallel tool calls are parallel actions; the model hears back once all are answered', async () => {
    ctx.upstream.reply({
      sse: toolCallAnswer([
        { id: 'call_a', name: 'get_weather', args: '{"city":"Oslo"}' },
        { id: 'call_b', name: 'get_time', args: '{}' },
      ]),
    });
    const id = await start(ctx, 'oa', 'Weather and time?', { tools: [WEATHER, CLOCK] });
    const { pendingActionIds } = await waitForAction(ctx.baseUrl, id, 2);
    const actions = await listActions(ctx.baseUrl, id);
    expect(actions.map((a) => a.tool)).toEqual([
      { callId: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
      { callId: 'call_b', name: 'get_time', arguments: {} },
    ]);
    expect(actions[1].inputSchema).toBeNull();
    await respond(ctx.baseUrl, id, pendingActionIds[1], { value: '12:00' });
    await new Promise((r) => setTimeout(r, 150));
    expect(ctx.upstream.requests).toHaveLength(1);

    ctx.upstream.reply({ sse: textAnswer(['Cold, noon.']) });
    await respond(ctx.baseUrl, id, pendingActionIds[0], { value: { tempC: -3 } });
    expect(await ended(ctx, id)).toMatchObject({ status: 'completed', outputText: 'Cold, noon.' });
    const messages = ctx.upstream.requests[1].body.messages;
    expect(messages.at(-3).tool_calls.map((c: any) => c.id)).toEqual(['call_a', 'call_b']);
    // A string answer is sent as it is; anything else JSON-encoded.
    expect(messages.slice(-2)).toEqual([
      { role: 'tool', tool_call_id: 'call_a', content: '{"tempC":-3}' },
      { role: 'tool', tool_call_id: 'call_b', content: '12:00' },
    ]);
  });

  it('tool arguments that are not JSON end the run with PROVIDER_ERROR and no action', async () => {
    ctx.upstream.reply({ sse: toolCallAnswer([{ id: 'call_x', name: 'get_weather', args: '{"city": Par' }]) });
    const id = await start(ctx, 'oa', 'Weather?', { tools: [WEATHER] });
    const execution = await ended(ctx, id);
    expect(execution.status).toBe('failed');
    expect(execution.error).toEqual({ code: 'PROVIDER_ERROR', message: expect.stringContaining('get_weather') });
    expect(typesOf(await replay(ctx.baseUrl, id))).not.toContain('action.required');
  });

  it('cancel while a tool call waits for its answer ends the run without asking upstream again', async () => {
    ctx.upstream.reply({ sse: toolCallAnswer([{ id: 'call_w', name: 'get_time', args: '{}' }]) });
    const id = await start(ctx, 'oa', 'Time?', { tools: [CLOCK] });
    await waitForAction(ctx.baseUrl, id);
    expect((await cancel(ctx.baseUrl, id)).body).toMatchObject({ status: 'cancelled', pendingActionIds: [] });
    expect((await listActions(ctx.baseUrl, id))[0].status).toBe('cancelled');
    await new Promise((r) => setTimeout(r, 100));
    expect(ctx.upstream.requests).toHaveLength(1);
  });

  it.each([
    ['an unknown key', { stream: false }],
    ['a wrong type', { temperature: 'hot' }],
    ['a temperature out of range', { temperature: 3 }],
    ['a non-integer maxTokens', { maxTokens: 1.5 }],
    ['an empty system', { system: '' }],
    ['tools not an array', { tools: {} }],
    ['a tool without parameters', { tools: [{ name: 'x' }] }],
    ['a tool with a bad name', { tools: [{ name: 'no spaces', parameters: { type: 'object' } }] }],
    ['a tool with an unknown field', { tools: [{ ...CLOCK, strict: true }] }],
    ['a tool whose parameters are not an object schema', { tools: [{ name: 'x', parameters: { type: 'string' } }] }],
    ['an invalid result schema', { tools: [{ ...CLOCK, resultSchema: { type: 'nope' } }] }],
    ['two tools of one name', { tools: [CLOCK, CLOCK] }],
  ])('config with %s is 400 and nothing is sent upstream', async (_label, config) => {
    const res = await api(ctx.baseUrl, 'POST', '/v1/executions', { conversationId: ctx.conversationId, provider: 'oa', input: { text: 'hi' }, config });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/^config\./);
    await new Promise((r) => setTimeout(r, 50));
    expect(ctx.upstream.requests).toHaveLength(0);
  });

  it('tools on an instance configured without them are 400', async () => {
    const res = await api(ctx.baseUrl, 'POST', '/v1/executions', {
      conversationId: ctx.conversationId,
      provider: 'local',
      input: { text: 'hi' },
      config: { tools: [CLOCK] },
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    const preflight = await api(ctx.baseUrl, 'POST', '/v1/executions', {
      conversationId: ctx.conversationId,
      provider: 'local',
      input: { text: 'hi' },
      requiredCapabilities: ['tools'],
    });
    expectError(preflight, 422, 'CAPABILITY_UNSUPPORTED', { capabilities: [{ name: 'tools', level: 'unsupported' }] });
    expect(ctx.upstream.requests).toHaveLength(0);
  });
});
