import { api } from '../support/app-harness';
import { cancel, expectError, listActions, replay, respond, typesOf, waitForAction } from '../support/execution-helpers';
import { messageDelta, messageStart, messageStop, streamError, textAnswer, textBlock, toolUseAnswer } from './support/anthropic-wire';
import { ended, SECRET, start, useProviderApp, waitForEvent, within } from './support/provider-app';

const LOOKUP = {
  name: 'lookup_order',
  description: 'Finds an order',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  resultSchema: { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] },
};
const CLOCK = { name: 'get_time', parameters: { type: 'object', properties: {} } };

describe('anthropic provider (official SDK against a loopback upstream)', () => {
  const ctx = useProviderApp((origin) => [
    {
      id: 'claude',
      kind: 'anthropic',
      // The host without /v1, as the SDK expects.
      baseURL: origin,
      apiKeyEnv: 'TEST_API_KEY',
      model: 'claude-test',
      defaults: { system: 'You are terse.' },
      retries: { max: 2, initialDelayMs: 1, maxDelayMs: 2000 },
    },
  ]);

  it('streams text deltas, reports usage with cache reads and writes, and the stop reason', async () => {
    ctx.upstream.reply({ sse: textAnswer(['Hel', 'lo'], { input: 10, cacheCreation: 5, cacheRead: 100, output: 2 }) });
    const id = await start(ctx, 'claude', 'hi');
    expect(await ended(ctx, id)).toMatchObject({ status: 'completed', outputText: 'Hello' });
    const events = await replay(ctx.baseUrl, id);
    expect(typesOf(events)).toEqual([
      'run.queued',
      'run.started',
      'output.text.delta',
      'output.text.delta',
      'provider.event',
      'output.text.done',
      'run.completed',
    ]);
    expect(events[4].data).toEqual({ namespace: 'anthropic', name: 'stop_reason', payload: { reason: 'end_turn' } });
    expect(events.at(-1).data).toEqual({ usage: { inputTokens: 115, outputTokens: 2 } });

    const [request] = ctx.upstream.requests;
    expect(request.url).toBe('/v1/messages');
    // SDK 1.x sends the key as a bearer token (API version 2026-10-21).
    expect(request.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(request.headers['anthropic-version']).toBe('2026-10-21');
    expect(request.body).toEqual({
      model: 'claude-test',
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      system: 'You are terse.',
    });
  });

  it('config overrides model, maxTokens and system', async () => {
    ctx.upstream.reply({ sse: textAnswer(['ok']) });
    await ended(ctx, await start(ctx, 'claude', 'hi', { model: 'claude-other', maxTokens: 64, system: 'Be kind.' }));
    expect(ctx.upstream.requests[0].body).toMatchObject({ model: 'claude-other', max_tokens: 64, system: 'Be kind.' });
  });

  it('a tool_use block becomes an input action; its answer goes back as tool_result', async () => {
    ctx.upstream.reply({ sse: toolUseAnswer([{ id: 'toolu_1', name: 'lookup_order', json: '{"orderId":"A-7"}' }], 'Checking. ') });
    const id = await start(ctx, 'claude', 'Where is A-7?', { tools: [LOOKUP] });
    const [actionId] = (await waitForAction(ctx.baseUrl, id)).pendingActionIds;
    const [action] = await listActions(ctx.baseUrl, id);
    expect(action).toMatchObject({
      kind: 'input',
      prompt: expect.stringContaining('lookup_order'),
      inputSchema: LOOKUP.resultSchema,
      tool: { callId: 'toolu_1', name: 'lookup_order', arguments: { orderId: 'A-7' } },
    });
    expect(ctx.upstream.requests[0].body.tools).toEqual([{ name: 'lookup_order', description: LOOKUP.description, input_schema: LOOKUP.parameters }]);
    ctx.upstream.reply({ sse: textAnswer(['Shipped.'], { input: 30, output: 2 }) });
    await respond(ctx.baseUrl, id, actionId, { value: { status: 'shipped' } });
    expect(await ended(ctx, id)).toMatchObject({ status: 'completed', outputText: 'Checking. Shipped.' });
    expect(ctx.upstream.requests[1].body.messages).toEqual([
      { role: 'user', content: 'Where is A-7?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking. ' },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup_order', input: { orderId: 'A-7' } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '{"status":"shipped"}' }] },
    ]);
    expect((await replay(ctx.baseUrl, id)).at(-1).data.usage).toEqual({ inputTokens: 50, outputTokens: 9 });
  });

  it('parallel tool_use blocks are parallel actions, answered in one user message', async () => {
    ctx.upstream.reply({
      sse: toolUseAnswer([
        { id: 'toolu_a', name: 'lookup_order', json: '{"orderId":"B-1"}' },
        { id: 'toolu_b', name: 'get_time', json: '' },
      ]),
    });
    const id = await start(ctx, 'claude', 'Order and time?', { tools: [LOOKUP, CLOCK] });
    const { pendingActionIds } = await waitForAction(ctx.baseUrl, id, 2);
    expect((await listActions(ctx.baseUrl, id)).map((a) => a.tool)).toEqual([
      { callId: 'toolu_a', name: 'lookup_order', arguments: { orderId: 'B-1' } },
      { callId: 'toolu_b', name: 'get_time', arguments: {} },
    ]);
    await respond(ctx.baseUrl, id, pendingActionIds[0], { value: { status: 'packed' } });
    await new Promise((r) => setTimeout(r, 150));
    expect(ctx.upstream.requests).toHaveLength(1);
    ctx.upstream.reply({ sse: textAnswer(['Packed at noon.']) });
    await respond(ctx.baseUrl, id, pendingActionIds[1], { value: '12:00' });
    expect(await ended(ctx, id)).toMatchObject({ status: 'completed' });
    expect(ctx.upstream.requests[1].body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_a', content: '{"status":"packed"}' },
        { type: 'tool_result', tool_use_id: 'toolu_b', content: '12:00' },
      ],
    });
  });

  it('tool input that is not JSON ends the run with PROVIDER_ERROR', async () => {
    ctx.upstream.reply({ sse: toolUseAnswer([{ id: 'toolu_x', name: 'lookup_order', json: '{"orderId": A' }]) });
    const execution = await ended(ctx, await start(ctx, 'claude', 'x', { tools: [LOOKUP] }));
    expect(execution.error).toEqual({ code: 'PROVIDER_ERROR', message: expect.stringContaining('lookup_order') });
  });

  it('an error event mid-stream fails the run and keeps its deltas', async () => {
    ctx.upstream.reply({ sse: [messageStart(5), ...textBlock(0, ['Par']).slice(0, 2), streamError('overloaded_error', 'Overloaded')] });
    const id = await start(ctx, 'claude', 'hi');
    const execution = await ended(ctx, id);
    expect(execution.error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream reported an error in its stream (overloaded_error)' });
    expect((await replay(ctx.baseUrl, id)).filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta)).toEqual(['Par']);
    expect(ctx.upstream.requests).toHaveLength(1);
  });

  it('429 and 529 before the first delta are retried, then it succeeds', async () => {
    ctx.upstream.reply(
      { status: 429, headers: { 'retry-after': '0' }, json: { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } } },
      { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
      { sse: textAnswer(['fine']) },
    );
    expect(await ended(ctx, await start(ctx, 'claude', 'hi'))).toMatchObject({ status: 'completed', outputText: 'fine' });
    expect(ctx.upstream.requests).toHaveLength(3);
  });

  it('cancel mid-stream closes the upstream connection', async () => {
    ctx.upstream.reply({ sse: [messageStart(5), ...textBlock(0, ['Once']).slice(0, 2)], hang: true });
    const id = await start(ctx, 'claude', 'Tell a long story');
    await waitForEvent(ctx, id, 'output.text.delta');
    expect((await cancel(ctx.baseUrl, id)).body.status).toBe('cancelled');
    expect(await within(ctx.upstream.requests[0].disconnected, 2000)).toBe(true);
  });

  it('history and the system prompt: the second execution hears the first', async () => {
    const conversationId = (await api(ctx.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    ctx.upstream.reply({ sse: textAnswer(['Hi Ada.']) }, { sse: textAnswer(['Ada.']) });
    await ended(ctx, await start(ctx, 'claude', 'I am Ada.', {}, conversationId));
    await ended(ctx, await start(ctx, 'claude', 'Who am I?', {}, conversationId));
    expect(ctx.upstream.requests[1].body).toMatchObject({
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'I am Ada.' },
        { role: 'assistant', content: 'Hi Ada.' },
        { role: 'user', content: 'Who am I?' },
      ],
    });
  });

  it.each([
    ['a temperature (API version 2026-10-21 removed it)', { temperature: 0.5 }],
    ['an unknown key', { top_k: 5 }],
    ['a maxTokens of 0', { maxTokens: 0 }],
    ['a tool without parameters', { tools: [{ name: 'x' }] }],
  ])('config with %s is 400 and nothing is sent upstream', async (_label, config) => {
    const res = await api(ctx.baseUrl, 'POST', '/v1/executions', { conversationId: ctx.conversationId, provider: 'claude', input: { text: 'hi' }, config });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(ctx.upstream.requests).toHaveLength(0);
  });

  it('the API key appears in no event, response, error body or log line', async () => {
    ctx.upstream.reply({ status: 401, json: { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${SECRET}` } } });
    const rejected = await ended(ctx, await start(ctx, 'claude', 'hi'));
    expect(rejected.error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream answered HTTP 401 (authentication_error)' });
    ctx.upstream.reply({ sse: [messageStart(1), ...textBlock(0, ['x']).slice(0, 2), streamError('api_error', `boom ${SECRET}`)] });
    const broken = await ended(ctx, await start(ctx, 'claude', 'hi'));
    ctx.upstream.reply({ sse: [messageStart(1), messageDelta('end_turn', 0), messageStop] });
    const empty = await ended(ctx, await start(ctx, 'claude', 'hi'));
    expect(empty).toMatchObject({ status: 'completed', outputText: null });

    const bodies: string[] = [];
    for (const id of [rejected.id, broken.id, empty.id]) {
      bodies.push((await api(ctx.baseUrl, 'GET', `/v1/executions/${id}`)).text, (await api(ctx.baseUrl, 'GET', `/v1/executions/${id}/events`)).text);
    }
    bodies.push((await api(ctx.baseUrl, 'GET', '/v1/providers/claude')).text);
    const everything = bodies.join('\n') + ctx.logs();
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(SECRET.slice(8));
  });
});
