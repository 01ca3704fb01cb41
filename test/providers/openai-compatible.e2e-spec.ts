import { api } from '../support/app-harness';
import { cancel, replay, typesOf } from '../support/execution-helpers';
import { chunk, streamError, textAnswer } from './support/openai-wire';
import { ended, SECRET, start, useProviderApp, waitForEvent, within } from './support/provider-app';

describe('openai-compatible provider (official SDK against a loopback upstream)', () => {
  const ctx = useProviderApp((origin) => [
    {
      id: 'oa',
      kind: 'openai-compatible',
      baseURL: `${origin}/v1`,
      apiKeyEnv: 'TEST_API_KEY',
      model: 'gpt-test',
      defaults: { system: 'You are terse.' },
      retries: { max: 2, initialDelayMs: 1, maxDelayMs: 2000 },
    },
    { id: 'oa-idle', kind: 'openai-compatible', baseURL: `${origin}/v1`, model: 'gpt-test', timeouts: { idleMs: 300 } },
    {
      id: 'local',
      kind: 'openai-compatible',
      baseURL: `${origin}/v1`,
      model: 'llama3',
      supports: { tools: false, streamUsage: false, maxCompletionTokens: true },
    },
  ]);

  it('streams each content chunk as a delta, reports usage and the finish reason', async () => {
    ctx.upstream.reply({ sse: textAnswer(['Hel', 'lo ', 'there'], [12, 3]) });
    const id = await start(ctx, 'oa', 'hi');
    const execution = await ended(ctx, id);
    expect(execution).toMatchObject({ status: 'completed', outputText: 'Hello there' });
    const events = await replay(ctx.baseUrl, id);
    expect(typesOf(events)).toEqual([
      'run.queued',
      'run.started',
      'output.text.delta',
      'output.text.delta',
      'output.text.delta',
      'provider.event',
      'output.text.done',
      'run.completed',
    ]);
    expect(events.filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta)).toEqual(['Hel', 'lo ', 'there']);
    expect(events.find((e) => e.type === 'provider.event').data).toEqual({ namespace: 'openai', name: 'finish_reason', payload: { reason: 'stop' } });
    expect(events.at(-1).data).toEqual({ usage: { inputTokens: 12, outputTokens: 3 } });

    const [request] = ctx.upstream.requests;
    expect(request.url).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(request.body).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'hi' },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('config overrides model, temperature, maxTokens and system; flags shape the request', async () => {
    ctx.upstream.reply({ sse: textAnswer(['ok']) }, { sse: textAnswer(['ok'], null) });
    await ended(ctx, await start(ctx, 'oa', 'hi', { model: 'gpt-other', temperature: 0.2, maxTokens: 50, system: 'Be kind.' }));
    expect(ctx.upstream.requests[0].body).toMatchObject({
      model: 'gpt-other',
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'Be kind.' },
        { role: 'user', content: 'hi' },
      ],
    });
    // A keyless local endpoint: no Authorization header, no stream_options, max_completion_tokens.
    const local = await ended(ctx, await start(ctx, 'local', 'hi', { maxTokens: 7 }));
    expect(local).toMatchObject({ status: 'completed', outputText: 'ok' });
    const request = ctx.upstream.requests[1];
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body.stream_options).toBeUndefined();
    expect(request.body).toMatchObject({ model: 'llama3', max_completion_tokens: 7 });
    expect((await replay(ctx.baseUrl, local.id)).at(-1).data).toEqual({ usage: null });
  });

  it('an upstream error mid-stream fails the run, keeps its deltas and is not retried', async () => {
    ctx.upstream.reply({ sse: [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Part' }), streamError('The server had an error')] });
    const id = await start(ctx, 'oa', 'hi');
    const execution = await ended(ctx, id);
    expect(execution).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_ERROR', message: expect.stringContaining('server_error') } });
    const events = await replay(ctx.baseUrl, id);
    expect(events.filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta)).toEqual(['Part']);
    expect(ctx.upstream.requests).toHaveLength(1);
  });

  it('a connection dropped mid-stream fails the run', async () => {
    ctx.upstream.reply({ sse: [chunk({ content: 'Par' })], drop: true });
    const execution = await ended(ctx, await start(ctx, 'oa', 'hi'));
    expect(execution).toMatchObject({ status: 'failed', error: { code: 'PROVIDER_ERROR' } });
    expect(ctx.upstream.requests).toHaveLength(1);
  });

  it('429 before the first delta is retried (Retry-After honoured), then succeeds', async () => {
    const rateLimited = { status: 429, headers: { 'retry-after': '0' }, json: { error: { message: 'slow down', type: 'rate_limit_exceeded' } } };
    ctx.upstream.reply(rateLimited, { status: 503, json: { error: { message: 'busy' } } }, { sse: textAnswer(['fine']) });
    const execution = await ended(ctx, await start(ctx, 'oa', 'hi'));
    expect(execution).toMatchObject({ status: 'completed', outputText: 'fine' });
    expect(ctx.upstream.requests).toHaveLength(3);
  });

  it('retries are bounded; the failure names the upstream status', async () => {
    const unavailable = { status: 503, json: { error: { message: 'overloaded', type: 'server_error' } } };
    ctx.upstream.reply(unavailable, unavailable, unavailable, unavailable);
    const execution = await ended(ctx, await start(ctx, 'oa', 'hi'));
    expect(execution.error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream answered HTTP 503 (server_error) after 2 retries' });
    expect(ctx.upstream.requests).toHaveLength(3);
    // A Retry-After longer than retries.maxDelayMs is not waited out.
    ctx.upstream.reset();
    ctx.upstream.reply({ status: 429, headers: { 'retry-after': '120' }, json: {} });
    const impatient = await ended(ctx, await start(ctx, 'oa', 'hi'));
    expect(impatient.error.message).toMatch(/^upstream answered HTTP 429.*120 s/);
    expect(ctx.upstream.requests).toHaveLength(1);
  });

  it('other statuses are not retried', async () => {
    ctx.upstream.reply({ status: 400, json: { error: { message: 'bad', type: 'invalid_request_error' } } });
    const execution = await ended(ctx, await start(ctx, 'oa', 'hi'));
    expect(execution.error.message).toBe('upstream answered HTTP 400 (invalid_request_error)');
    expect(ctx.upstream.requests).toHaveLength(1);
  });

  it('cancel mid-stream closes the upstream connection', async () => {
    ctx.upstream.reply({ sse: [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Once upon' })], hang: true });
    const id = await start(ctx, 'oa', 'Tell a long story');
    await waitForEvent(ctx, id, 'output.text.delta');
    const res = await cancel(ctx.baseUrl, id, { reason: 'enough' });
    expect(res.body).toMatchObject({ status: 'cancelled', cancellation: { reason: 'enough', providerCleanupError: null } });
    expect(await within(ctx.upstream.requests[0].disconnected, 2000)).toBe(true);
  });

  it('an upstream that goes quiet past the idle timeout fails the run', async () => {
    ctx.upstream.reply({ sse: [chunk({ content: 'Hm' })], hang: true });
    const execution = await ended(ctx, await start(ctx, 'oa-idle', 'hi'));
    expect(execution.error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream sent nothing for 300 ms' });
    expect(await within(ctx.upstream.requests[0].disconnected, 2000)).toBe(true);
  });

  it('the second execution of a conversation sends the first as prior messages', async () => {
    const conversationId = (await api(ctx.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    ctx.upstream.reply({ sse: textAnswer(['Hi Ada.']) }, { sse: textAnswer(['Ada.']) });
    await ended(ctx, await start(ctx, 'oa', 'I am Ada.', {}, conversationId));
    await ended(ctx, await start(ctx, 'oa', 'Who am I?', {}, conversationId));
    expect(ctx.upstream.requests[1].body.messages).toEqual([
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Hi Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);
  });

  it('the API key appears in no event, response, error body or log line', async () => {
    // Some APIs echo part of a rejected key in their error body: it must not travel on.
    ctx.upstream.reply({
      status: 401,
      json: { error: { message: `Incorrect API key provided: ${SECRET}`, type: 'invalid_request_error', code: 'invalid_api_key' } },
    });
    const rejected = await ended(ctx, await start(ctx, 'oa', 'hi'));
    expect(rejected.error).toEqual({ code: 'PROVIDER_ERROR', message: 'upstream answered HTTP 401 (invalid_api_key)' });
    ctx.upstream.reply({ sse: [chunk({ content: 'x' }), streamError(`leaked ${SECRET}`)] });
    const broken = await ended(ctx, await start(ctx, 'oa', 'hi'));

    const bodies: string[] = [];
    for (const path of ['/v1/providers', '/v1/providers/oa', '/v1/runtime', `/v1/executions/${rejected.id}`, `/v1/executions/${broken.id}`]) {
      bodies.push((await api(ctx.baseUrl, 'GET', path)).text);
    }
    for (const id of [rejected.id, broken.id]) bodies.push((await api(ctx.baseUrl, 'GET', `/v1/executions/${id}/events`)).text);
    bodies.push(
      (await api(ctx.baseUrl, 'POST', '/v1/executions', { conversationId: ctx.conversationId, provider: 'oa', input: { text: 'x' }, config: { nope: 1 } }))
        .text,
    );
    const everything = bodies.join('\n') + ctx.logs();
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(SECRET.slice(8));
  });
});
