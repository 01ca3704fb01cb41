import OpenAI from 'openai';
import { api } from '../support/app-harness';
import { textAnswer, toolCallAnswer } from '../providers/support/openai-wire';
import { useProviderApp } from '../providers/support/provider-app';
import { client, collect, valid } from './support/responses-client';

const WEATHER = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/** What the server sent, less the `output_text` convenience the SDK adds to create and retrieve answers. */
const serverSaid = ({ output_text: _, ...response }: { output_text?: string }) => response;

/** docs/responses-api.md against a loopback OpenAI-compatible upstream, through the official SDK. */
describe('/v1/responses on an OpenAI-compatible provider', () => {
  const ctx = useProviderApp((origin) => [{ id: 'oa', kind: 'openai-compatible', baseURL: `${origin}/v1`, apiKeyEnv: 'TEST_API_KEY', model: 'gpt-test' }]);
  let openai: OpenAI;
  beforeAll(() => (openai = client(ctx.baseUrl)));

  it('maps model, instructions, temperature and max_output_tokens onto the execution; usage comes back', async () => {
    ctx.upstream.reply({ sse: textAnswer(['Bonjour', '!'], [12, 3]) });
    const response = valid(
      await openai.responses.create({ model: 'oa/gpt-other', input: 'Say hello', instructions: 'Answer in French.', temperature: 0.2, max_output_tokens: 50 }),
    );
    expect(response).toMatchObject({ status: 'completed', model: 'oa/gpt-other', instructions: 'Answer in French.', temperature: 0.2, max_output_tokens: 50 });
    expect(response.output_text).toBe('Bonjour!');
    expect(response.usage).toMatchObject({ input_tokens: 12, output_tokens: 3, total_tokens: 15 });
    expect(ctx.upstream.requests[0].body).toMatchObject({
      model: 'gpt-other',
      temperature: 0.2,
      max_tokens: 50,
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
  });

  it('a finish at the token limit is an incomplete response', async () => {
    ctx.upstream.reply({ sse: textAnswer(['Once upon'], [5, 2], 'length') });
    const response = valid(await openai.responses.create({ model: 'oa', input: 'A story', max_output_tokens: 2 }));
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
  });

  it('a background stream cut mid-way and resumed with starting_after gives the same response, no delta repeated or missing', async () => {
    const parts = [...Array(12)].map((_, i) => `w${i} `);
    ctx.upstream.reply({ sse: textAnswer(parts), gapMs: 25 });
    const queued = valid(await openai.responses.create({ model: 'oa', input: 'count', background: true }));
    // Cut after the first delta, while the run still streams.
    const head = await collect(await openai.responses.retrieve(queued.id, { stream: true }), 5);
    expect(head.at(-1).type).toBe('response.output_text.delta');
    const tail = await collect(await openai.responses.retrieve(queued.id, { stream: true, starting_after: head.at(-1).sequence_number }));
    const all = [...head, ...tail];
    expect(all.map((e) => e.sequence_number)).toEqual(all.map((_, i) => i));
    expect(all.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual(parts);
    // The client can rebuild the whole response from the events: the last one carries it.
    const final = all.at(-1);
    expect(final.type).toBe('response.completed');
    expect(final.response).toEqual(serverSaid(valid(await openai.responses.retrieve(queued.id))));
    expect(final.response.output[0].content[0].text).toBe(parts.join(''));
    // A full replay says exactly the same, event for event.
    expect(await collect(await openai.responses.retrieve(queued.id, { stream: true }))).toEqual(all);
  });

  it('cancel stops the execution once; cancelling again answers the cancelled response as it is', async () => {
    ctx.upstream.reply({ sse: textAnswer(['partial ', 'never']).slice(0, 2), hang: true });
    const queued = await openai.responses.create({ model: 'oa', input: 'go', background: true });
    const deadline = Date.now() + 5000;
    while ((await openai.responses.retrieve(queued.id)).output_text === '') {
      if (Date.now() > deadline) throw new Error('no output');
      await new Promise((r) => setTimeout(r, 15));
    }
    const [a, b] = await Promise.all([openai.responses.cancel(queued.id), openai.responses.cancel(queued.id)]);
    expect(valid(a)).toMatchObject({ status: 'cancelled' });
    expect(b).toEqual(a);
    expect(valid(await openai.responses.cancel(queued.id))).toEqual(a);
    await ctx.upstream.requests[0].disconnected;
    const events = (await api(ctx.baseUrl, 'GET', `/v1/executions/${queued.id.slice(5)}/events`)).body.events;
    expect(events.filter((e: { type: string }) => e.type === 'run.cancelled')).toHaveLength(1);
    const stream = await collect(await openai.responses.retrieve(queued.id, { stream: true }));
    expect(stream.at(-1)).toMatchObject({ type: 'response.cancelled', response: { status: 'cancelled' } });
    // Cancelling a completed response returns it unchanged.
    ctx.upstream.reply({ sse: textAnswer(['done']) });
    const done = await openai.responses.create({ model: 'oa', input: 'quick' });
    expect(serverSaid(await openai.responses.cancel(done.id))).toEqual(serverSaid(done));
  });

  it('a two-turn conversation through previous_response_id: the second turn sees the first', async () => {
    ctx.upstream.reply({ sse: textAnswer(['Hello Ada.']) }, { sse: textAnswer(['You are Ada.']) });
    const first = await openai.responses.create({ model: 'oa', input: 'My name is Ada.' });
    const second = valid(await openai.responses.create({ model: 'oa', input: 'What is my name?', previous_response_id: first.id }));
    expect(second.output_text).toBe('You are Ada.');
    expect(ctx.upstream.requests[1].body.messages).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('a tool-calling loop: the call is a function_call item, its output answers the action and continues the same execution', async () => {
    ctx.upstream.reply({ sse: toolCallAnswer([{ id: 'call_1', name: 'get_weather', args: '{"city":"Paris"}' }], [20, 5], 'Let me check. ') });
    const first = valid(await openai.responses.create({ model: 'oa', input: 'Weather in Paris?', tools: [WEATHER] }));
    expect(first.status).toBe('completed');
    expect(first.output).toEqual([
      expect.objectContaining({ type: 'message', content: [expect.objectContaining({ text: 'Let me check. ' })] }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' }),
    ]);
    const executionId = first.id.slice('resp_'.length);
    expect((await api(ctx.baseUrl, 'GET', `/v1/executions/${executionId}`)).body.status).toBe('requires_action');

    ctx.upstream.reply({ sse: textAnswer(['21 °C in Paris.'], [40, 4]) });
    const stream = openai.responses.stream({
      model: 'oa',
      previous_response_id: first.id,
      tools: [WEATHER],
      input: [{ type: 'function_call_output', call_id: 'call_1', output: '{"tempC":21}' }],
    });
    const events = await collect(stream);
    const second = valid(await stream.finalResponse());
    expect(events[0].type).toBe('response.created');
    expect(second).toMatchObject({ id: `resp_${executionId}_2`, previous_response_id: first.id, status: 'completed' });
    expect(second.output_text).toBe('21 °C in Paris.');
    expect(second.usage).toMatchObject({ input_tokens: 60, output_tokens: 9 });
    expect(ctx.upstream.requests[1].body.messages.slice(-2)).toEqual([
      expect.objectContaining({ role: 'assistant', tool_calls: [expect.objectContaining({ id: 'call_1' })] }),
      { role: 'tool', tool_call_id: 'call_1', content: '{"tempC":21}' },
    ]);
    const log = (await api(ctx.baseUrl, 'GET', `/v1/executions/${executionId}/events`)).body.events.map((e: { type: string }) => e.type);
    expect(log.filter((t: string) => t === 'run.queued')).toHaveLength(1);
    expect(log).toContain('action.responded');
    const items = await openai.responses.inputItems.list(second.id);
    expect(items.data).toEqual([expect.objectContaining({ type: 'function_call_output', call_id: 'call_1', output: '{"tempC":21}' })]);
    // The first turn stays as it ended; a second answer to it is refused.
    expect(await openai.responses.retrieve(first.id)).toEqual(first);
    const again = await openai.responses
      .create({ model: 'oa', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'call_1', output: 'x' }] })
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('parallel calls end the turn only once all are asked; outputs must answer every one of them', async () => {
    ctx.upstream.reply({
      sse: toolCallAnswer([
        { id: 'call_a', name: 'get_weather', args: '{"city":"Oslo"}' },
        { id: 'call_b', name: 'get_weather', args: '{"city":"Rome"}' },
      ]),
    });
    const first = valid(await openai.responses.create({ model: 'oa', input: 'Oslo and Rome?', tools: [WEATHER] }));
    expect(first.output.map((item: any) => item.call_id)).toEqual(['call_a', 'call_b']);
    const partial = await openai.responses
      .create({ model: 'oa', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'call_a', output: 'cold' }] })
      .catch((e: unknown) => e);
    expect(partial).toBeInstanceOf(OpenAI.BadRequestError);
    expect(partial).toMatchObject({ param: 'input' });
    ctx.upstream.reply({ sse: textAnswer(['Cold and warm.']) });
    const second = await openai.responses.create({
      model: 'oa',
      previous_response_id: first.id,
      input: [
        { type: 'function_call_output', call_id: 'call_b', output: 'warm' },
        { type: 'function_call_output', call_id: 'call_a', output: 'cold' },
      ],
    });
    expect(second.output_text).toBe('Cold and warm.');
  });

  it('two continuations racing with the same output: exactly one answers the call, the other is refused', async () => {
    ctx.upstream.reply({ sse: toolCallAnswer([{ id: 'call_r', name: 'get_weather', args: '{"city":"Lima"}' }]) });
    const first = await openai.responses.create({ model: 'oa', input: 'Lima?', tools: [WEATHER] });
    ctx.upstream.reply({ sse: textAnswer(['Mild.']) });
    const body = { model: 'oa', previous_response_id: first.id, input: [{ type: 'function_call_output' as const, call_id: 'call_r', output: 'mild' }] };
    const results = await Promise.allSettled([openai.responses.create(body), openai.responses.create(body)]);
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    expect([OpenAI.BadRequestError, OpenAI.ConflictError].some((type) => lost[0].reason instanceof type)).toBe(true);
    const log = (await api(ctx.baseUrl, 'GET', `/v1/executions/${first.id.slice(5)}/events`)).body.events.map((e: { type: string }) => e.type);
    expect(log.filter((t: string) => t === 'action.responded')).toHaveLength(1);
    expect(log.at(-1)).toBe('run.completed');
  });

  it('tool_choice none keeps the tools from the model but echoes them', async () => {
    ctx.upstream.reply({ sse: textAnswer(['No tools.']) });
    const response = await openai.responses.create({ model: 'oa', input: 'hi', tools: [WEATHER], tool_choice: 'none' });
    expect(response).toMatchObject({ tool_choice: 'none', tools: [expect.objectContaining({ name: 'get_weather' })] });
    expect(ctx.upstream.requests[0].body.tools).toBeUndefined();
  });
});
