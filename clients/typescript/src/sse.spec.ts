import { parseSse } from './sse';

const body = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

async function messages(...chunks: string[]) {
  const retries: number[] = [];
  const out = [];
  for await (const message of parseSse(body(...chunks), { onRetry: (ms) => retries.push(ms) })) out.push(message);
  return { out, retries };
}

describe('parseSse', () => {
  it('reads messages split anywhere, with any line ending, skipping comments', async () => {
    const { out, retries } = await messages(
      'retry: 1000\n\nid: 3\r',
      '\nevent: output.text.delta\r\nda',
      'ta: {"a":1}\r\n\r\n: keep-alive\n\nid: 4\rdata: x\rdata: y\r\r',
    );
    expect(retries).toEqual([1000]);
    expect(out).toEqual([
      { id: '3', event: 'output.text.delta', data: '{"a":1}' },
      { id: '4', event: 'message', data: 'x\ny' },
    ]);
  });

  it('drops a message the connection cut before its blank line', async () => {
    const { out } = await messages('id: 1\ndata: whole\n\nid: 2\ndata: {"trunc');
    expect(out.map((m) => m.id)).toEqual(['1']);
  });

  it('decodes a character split between chunks', async () => {
    const bytes = new TextEncoder().encode('data: é\n\n');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 7));
        controller.enqueue(bytes.slice(7));
        controller.close();
      },
    });
    const out = [];
    for await (const message of parseSse(stream)) out.push(message.data);
    expect(out).toEqual(['é']);
  });
});
