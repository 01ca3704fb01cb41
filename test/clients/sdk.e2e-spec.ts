import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { RunledgerClient, RunledgerError, type ExecutionEvent } from '../../clients/typescript/src';
import { useApp } from '../support/app-harness';

const script = (steps: Record<string, unknown>[]) => ({ script: steps });
const texts = (n: number, ms: number) =>
  Array.from({ length: n }, (_, i) => [
    { type: 'text', text: `t${i} ` },
    { type: 'delay', ms },
  ]).flat();

async function collect<T>(items: AsyncIterable<T>, each: (item: T, index: number) => void = () => undefined): Promise<T[]> {
  const seen: T[] = [];
  for await (const item of items) {
    each(item, seen.length);
    seen.push(item);
  }
  return seen;
}

describe('TypeScript SDK against the real server', () => {
  const ctx = useApp({ conversation: true });
  const client = () => new RunledgerClient({ baseUrl: ctx.baseUrl });

  it('starts with a generated idempotency key and streams every event once, ending at the terminal event', async () => {
    const { execution, replayed } = await client().start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'hello brave new world' },
    });
    expect(replayed).toBe(false);
    expect(execution.idempotencyKey).toEqual(expect.any(String));
    const events = await collect(client().events(execution.id));
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.at(-1)!.type).toBe('run.completed');
    const again = await client().start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'hello brave new world' },
      idempotencyKey: execution.idempotencyKey!,
    });
    expect(again).toMatchObject({ replayed: true, execution: { id: execution.id } });
  });

  it('survives its stream being cut three times mid-execution: each event exactly once, then the end', async () => {
    const sockets = new Set<Socket>();
    const server = ctx.app.getHttpServer();
    // The streams' own sockets: a keep-alive connection from an earlier request may carry one.
    const track = (request: IncomingMessage) => {
      if (String(request.headers.accept).includes('text/event-stream')) sockets.add(request.socket);
    };
    server.on('request', track);
    try {
      const { execution } = await client().start({
        conversationId: ctx.conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: script(texts(30, 120)),
      });
      const reconnects: string[] = [];
      // A reconnect waits at most the server's retry (1 s), under ten events of this script: each cut falls well before the end.
      const cutAt = new Set([3, 12, 20]);
      const events = await collect(client().events(execution.id, { onReconnect: (error) => reconnects.push(error.code) }), (_, index) => {
        if (!cutAt.has(index)) return;
        for (const socket of sockets) socket.destroy();
        sockets.clear();
      });
      expect(reconnects.length).toBeGreaterThanOrEqual(3);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      expect(events.filter((e) => e.type === 'output.text.delta')).toHaveLength(30);
      expect(events.at(-1)!.type).toBe('run.completed');
    } finally {
      server.off('request', track);
    }
  });

  it('resumes after a cursor and stops at once on an aborted signal', async () => {
    const { execution } = await client().start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: script(texts(50, 100)),
    });
    const stop = new AbortController();
    const seen: ExecutionEvent[] = [];
    await expect(
      collect(client().events(execution.id, { after: 1, signal: stop.signal }), (event, index) => (seen.push(event), index === 1 && stop.abort())),
    ).rejects.toThrow();
    expect(seen.map((e) => e.sequence)).toEqual([2, 3]);
    await client().cancel(execution.id, { reason: 'done with it' });
  });

  it('throws one typed error carrying the envelope', async () => {
    const notFound = await client()
      .execution('no-such-execution')
      .catch((error: unknown) => error);
    expect(notFound).toBeInstanceOf(RunledgerError);
    expect(notFound).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const invalid = await client()
      .start({ conversationId: ctx.conversationId, provider: 'scripted', input: { text: '' } })
      .catch((error: unknown) => error as RunledgerError);
    expect(invalid).toMatchObject({ code: 'VALIDATION_ERROR', status: 400, message: expect.stringContaining('text') });
    await expect(client().events('no-such-execution').next()).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });

  it('pages searches and the audit feed', async () => {
    const conversation = await client().createConversation({ title: 'paging' });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await client().start({ conversationId: conversation.id, provider: 'scripted', input: { text: `run ${i}` } })).execution.id);
    const found = await collect(client().searchAll({ conversationId: conversation.id, limit: 2 }));
    expect(found.map((e) => e.id)).toEqual([...ids].reverse());
    const feed = await collect(client().feedAll({ limit: 3 }));
    expect(feed.map((e) => e.position)).toEqual([...feed.map((e) => e.position)].sort((a, b) => a - b));
    expect(new Set(feed.map((e) => e.position)).size).toBe(feed.length);
    expect(feed.filter((e) => e.type === 'conversation.created' && e.conversationId === conversation.id)).toHaveLength(1);
  });

  it('answers an approval and follows the audit feed live until aborted', async () => {
    const head = (await client().feedPage({ limit: 1 })).lastPosition;
    const { execution } = await client().start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: script([
        { type: 'action', kind: 'approval', prompt: 'Ship it?' },
        { type: 'text', text: 'shipped' },
      ]),
    });
    const stop = new AbortController();
    const live = collect(client().feed({ after: head, signal: stop.signal }), (event) => {
      if (event.executionId === execution.id && event.type === 'run.completed') stop.abort();
    }).catch((error: unknown) => error);
    for await (const event of client().events(execution.id)) {
      if (event.type !== 'action.required') continue;
      const [action] = await client().actions(execution.id);
      expect(await client().respond(execution.id, action.id, { decision: 'approve', comment: 'fine' })).toMatchObject({ status: 'resolved' });
    }
    await live;
    expect((await client().execution(execution.id)).status).toBe('completed');
  });
});

describe('TypeScript SDK retries what the server refused for now', () => {
  const ctx = useApp({ conversation: true, env: { MAX_RUNNING_PER_TENANT: '1' } });

  it("waits out a 429's Retry-After and starts exactly one execution", async () => {
    const client = new RunledgerClient({ baseUrl: ctx.baseUrl, maxRetries: 10 });
    const busy = await client.start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: script([{ type: 'delay', ms: 1500 }]),
    });
    const strict = new RunledgerClient({ baseUrl: ctx.baseUrl, maxRetries: 0 });
    await expect(strict.start({ conversationId: ctx.conversationId, provider: 'scripted', input: { text: 'y' } })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
    });
    const { execution } = await client.start({ conversationId: ctx.conversationId, provider: 'scripted', input: { text: 'z' } });
    expect((await client.execution(busy.execution.id)).status).toBe('completed');
    const conversation = await client.conversation(ctx.conversationId);
    expect(conversation.executions.map((e) => e.id)).toEqual([busy.execution.id, execution.id]);
  });
});
