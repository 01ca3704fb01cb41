import OpenAI from 'openai';
import { api, useApp } from '../support/app-harness';
import { expectValid } from './support/open-responses-schemas';
import { client, collect, untilEnded, valid } from './support/responses-client';

/** docs/responses-api.md with the official SDK and the built-in scripted provider (it echoes the input word by word). */
describe('/v1/responses on the scripted provider', () => {
  const app = useApp();
  let openai: OpenAI;
  beforeAll(() => (openai = client(app.baseUrl)));

  it('create without streaming waits for the end and answers the Response', async () => {
    const response = valid(await openai.responses.create({ model: 'scripted', input: 'hello brave new world', metadata: { order: '42' } }));
    expect(response).toMatchObject({ object: 'response', status: 'completed', model: 'scripted', metadata: { order: '42' }, store: true, error: null });
    expect(response.output_text).toBe('hello brave new world');
    expect(response.output).toEqual([expect.objectContaining({ type: 'message', role: 'assistant', status: 'completed' })]);
    // The response is its execution: the id maps back, and the execution API sees the same run.
    const executionId = response.id.replace(/^resp_/, '');
    const execution = await api(app.baseUrl, 'GET', `/v1/executions/${executionId}`);
    expect(execution.body).toMatchObject({ status: 'completed', outputText: 'hello brave new world', provider: 'scripted' });
    expect(response.conversation).toEqual({ id: execution.body.conversationId });
    expect(valid(await openai.responses.retrieve(response.id))).toEqual(response);
  });

  it('create with stream: true through the stream helper gives every semantic event in order', async () => {
    const stream = openai.responses.stream({ model: 'scripted', input: 'one two three' });
    const events = await collect(stream);
    const final = valid(await stream.finalResponse());
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta)).toEqual(['one ', 'two ', 'three']);
    expect(final.output_text).toBe('one two three');
    // The helper adds its own `parsed` fields; everything the server said is the same on a retrieve.
    expect(final).toMatchObject(valid(await openai.responses.retrieve(final.id)));
  });

  it('a background response answers queued at once and is retrieved until it ends', async () => {
    const queued = valid(await openai.responses.create({ model: 'scripted', input: 'later please', background: true }));
    expect(queued).toMatchObject({ status: 'queued', background: true, output: [] });
    const done = await untilEnded(openai, queued.id);
    expect(done).toMatchObject({ status: 'completed', background: true });
    expect(done.output_text).toBe('later please');
  });

  it('a replay after the last event is an ordinary, empty stream', async () => {
    const done = valid(await openai.responses.create({ model: 'scripted', input: 'a b' }));
    const all = await collect(await openai.responses.retrieve(done.id, { stream: true }));
    const last = all.at(-1).sequence_number;
    expect(await collect(await openai.responses.retrieve(done.id, { stream: true, starting_after: last }))).toEqual([]);
    expect(await collect(await openai.responses.retrieve(done.id, { stream: true, starting_after: last - 1 }))).toEqual([all.at(-1)]);
  });

  it('previous_response_id continues the same conversation in a new execution', async () => {
    const first = valid(await openai.responses.create({ model: 'scripted', input: 'first turn' }));
    const second = valid(await openai.responses.create({ model: 'scripted', input: 'second turn', previous_response_id: first.id }));
    expect(second.previous_response_id).toBe(first.id);
    expect(second.conversation).toEqual(first.conversation);
    const conversation = await api(app.baseUrl, 'GET', `/v1/conversations/${(first.conversation as { id: string }).id}`);
    expect(conversation.body.executions.map((e: { id: string }) => `resp_${e.id}`)).toEqual([first.id, second.id]);
  });

  it('input items: the request as normalized, newest first by default', async () => {
    const response = await openai.responses.create({
      model: 'scripted',
      input: [
        { role: 'user', content: 'part one' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'part two' }] },
      ],
    });
    expect(response.output_text).toBe('part one\n\npart two');
    const page = await openai.responses.inputItems.list(response.id, { order: 'asc' });
    expect(page.data.map((item: any) => item.content[0].text)).toEqual(['part one', 'part two']);
    expect((await openai.responses.inputItems.list(response.id)).data.map((item: any) => item.content[0].text)).toEqual(['part two', 'part one']);
  });

  it('errors are OpenAI-shaped, so the SDK raises its own typed errors', async () => {
    const refused = async (promise: Promise<unknown>, type: new (...args: any[]) => Error, code: string, param: string | null) => {
      const error = await promise.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(type);
      expect(error).toMatchObject({ code, param });
      expectValid('error', { error: (error as { error: unknown }).error });
    };
    await refused(openai.responses.retrieve('resp_nope'), OpenAI.NotFoundError, 'NOT_FOUND', null);
    await refused(openai.responses.create({ model: 'scripted', input: 'x', store: false }), OpenAI.BadRequestError, 'VALIDATION_ERROR', 'store');
    await refused(openai.responses.create({ model: 'nobody', input: 'x' }), OpenAI.NotFoundError, 'PROVIDER_NOT_FOUND', 'model');
    await refused(
      openai.responses.create({ model: 'scripted', input: 'x', instructions: 'be brief' }),
      OpenAI.BadRequestError,
      'VALIDATION_ERROR',
      'instructions',
    );
    await refused(
      openai.responses.create({ model: 'scripted', input: 'x', previous_response_id: 'resp_missing' }),
      OpenAI.NotFoundError,
      'NOT_FOUND',
      'previous_response_id',
    );
    await refused(
      openai.responses.create({ model: 'scripted', input: 'x', conversation: 'no-such-conversation' }),
      OpenAI.NotFoundError,
      'NOT_FOUND',
      'conversation',
    );
    await refused(
      openai.responses.create({ model: 'scripted', input: [{ role: 'assistant', content: 'hi' }] }),
      OpenAI.BadRequestError,
      'VALIDATION_ERROR',
      'input[0].role',
    );
    await refused(
      openai.responses.create({ model: 'scripted', input: 'x', metadata: Object.fromEntries([...Array(17)].map((_, i) => [`k${i}`, 'v'])) }),
      OpenAI.BadRequestError,
      'VALIDATION_ERROR',
      'metadata',
    );
  });

  it('bounds every client-controlled size (docs/responses-api.md#limits), and a refusal leaves nothing behind', async () => {
    const before = (await api(app.baseUrl, 'GET', '/v1/events')).body.lastPosition;
    const tooMany = (n: number) => [...Array(n)].map(() => ({ role: 'user' as const, content: 'x' }));
    const tool = (i: number) => ({ type: 'function' as const, name: `f${i}`, parameters: { type: 'object' }, strict: false });
    for (const [body, param] of [
      [{ input: tooMany(101) }, 'input'],
      [{ input: 'x', tools: [...Array(65)].map((_, i) => tool(i)) }, 'tools'],
      [{ input: 'x', metadata: { ['k'.repeat(65)]: 'v' } }, 'metadata'],
      [{ input: 'x', metadata: { k: 'v'.repeat(513) } }, 'metadata.k'],
      [{ input: 'x', model: 's'.repeat(257) }, 'model'],
      [{ input: 'x', tool_choice: 'required' }, 'tool_choice'],
      [{ input: 'x', reasoning: { effort: 'low' } }, 'reasoning'],
    ] as const) {
      const error = await openai.responses.create({ model: 'scripted', ...(body as object) } as never).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error).toMatchObject({ param });
    }
    expect((await api(app.baseUrl, 'GET', `/v1/events?after=${before}`)).body.events).toEqual([]);
  });

  it('an execution started through /v1/executions reads as a response too; conversation takes an id or { id }', async () => {
    const conversation = await api(app.baseUrl, 'POST', '/v1/conversations', {});
    const started = await api(app.baseUrl, 'POST', '/v1/executions', {
      conversationId: conversation.body.id,
      provider: 'scripted',
      input: { text: 'plain run' },
    });
    const id = `resp_${started.body.id}`;
    const deadline = Date.now() + 5000;
    while ((await openai.responses.retrieve(id)).status !== 'completed') {
      if (Date.now() > deadline) throw new Error('not completed');
      await new Promise((r) => setTimeout(r, 15));
    }
    const response = valid(await openai.responses.retrieve(id));
    expect(response).toMatchObject({ model: 'scripted', conversation: { id: conversation.body.id } });
    expect(response.output_text).toBe('plain run');
    const next = await openai.responses.create({ model: 'scripted', input: 'same place', conversation: { id: conversation.body.id } });
    expect(next.conversation).toEqual({ id: conversation.body.id });
  });

  it('an image part asks the capability preflight, which refuses it as for an execution (422)', async () => {
    const error = await openai.responses
      .create({
        model: 'scripted',
        input: [
          {
            role: 'user',
            content: [{ type: 'input_text', text: 'what is this?' }, { type: 'input_image', detail: 'auto', file_id: null, image_url: null } as never],
          },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(error).toMatchObject({ code: 'CAPABILITY_UNSUPPORTED', param: 'input' });
  });

  it('raw HTTP edges: an unknown route and bad JSON under /v1/responses answer the OpenAI shape; other routes keep theirs', async () => {
    const unknown = await api(app.baseUrl, 'GET', '/v1/responses/resp_x/nothing');
    expect(unknown.status).toBe(404);
    expectValid('error', unknown.body);
    const malformed = await fetch(`${app.baseUrl}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":' });
    expect(malformed.status).toBe(400);
    expectValid('error', await malformed.json());
    const elsewhere = await api(app.baseUrl, 'GET', '/v1/executions/nope');
    expect(elsewhere.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });
});
