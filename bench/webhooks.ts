/**
 * Webhook delivery benchmark: the compiled server (`node dist/main.js`) over real HTTP, one
 * endpoint (every event type, deltas included) pointing at a receiver on 127.0.0.1.
 *
 *   npm run bench:webhooks              full run
 *   npm run bench:webhooks -- --quick   fewer executions (smoke test)
 *
 * Prints the rate events were appended at against the rate they were delivered at (the
 * receiver's first sight of each `webhook-id`), and the latency from append (the event's
 * `occurredAt`, stamped by the server's clock on this machine) to receipt.
 */
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { fixed, int, line, percentile } from './lib/format';
import { ServerProcess } from './lib/server';

const QUICK = process.argv.includes('--quick');
const EXECUTIONS = QUICK ? 40 : 200;
const STEPS = 20;
const PARALLEL = 20;
const EVENTS = ['run.queued', 'run.started', 'output.text.delta', 'output.text.done', 'run.completed'];

async function main(): Promise<void> {
  const seen = new Map<string, number>();
  const latencies: number[] = [];
  let firstAt = 0;
  let lastAt = 0;
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const now = Date.now();
      if (!seen.has(id)) {
        seen.set(id, now);
        latencies.push(now - Date.parse((JSON.parse(body) as { data: { occurredAt: string } }).data.occurredAt));
        firstAt ||= now;
        lastAt = now;
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const server = await ServerProcess.start({ env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_MAX_IN_FLIGHT: '16' } });
  try {
    const { client } = server;
    const hook = await client.json('POST', '/v1/webhooks', { url, events: EVENTS });
    if (hook.status !== 201) throw new Error(`webhook not created: ${hook.status}`);
    const conversation = (await client.json('POST', '/v1/conversations', {})).body as { id: string };
    const script = Array.from({ length: STEPS }, (_, i) => ({ type: 'text', text: `part ${i} ` }));
    const started = Date.now();
    const ids: string[] = [];
    for (let next = 0; next < EXECUTIONS; next += PARALLEL) {
      const batch = Array.from({ length: Math.min(PARALLEL, EXECUTIONS - next) }, () =>
        client.json('POST', '/v1/executions', { provider: 'scripted', conversationId: conversation.id, input: { text: 'x' }, config: { script } }),
      );
      for (const res of await Promise.all(batch)) ids.push((res.body as { id: string }).id);
    }
    // Every run ended: the appends are done.
    for (const id of ids) {
      for (;;) {
        const status = ((await client.json('GET', `/v1/executions/${id}`)).body as { status: string }).status;
        if (status === 'completed') break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
    const appendedBy = Date.now();
    const expected = EXECUTIONS * (STEPS + 4);
    while (seen.size < expected) await new Promise((r) => setTimeout(r, 20));
    const sorted = latencies.sort((a, b) => a - b);
    console.log(`webhooks: ${int(EXECUTIONS)} executions × ${STEPS + 4} events = ${int(expected)} deliveries to one endpoint (SQLite, synchronous=FULL)`);
    console.log(
      line('events appended', `${int(expected / ((appendedBy - started) / 1000))} /s (all runs ended in ${fixed((appendedBy - started) / 1000, 2)} s)`),
    );
    console.log(
      line('deliveries received', `${int(expected / ((lastAt - firstAt) / 1000))} /s (first to last receipt, ${fixed((lastAt - firstAt) / 1000, 2)} s)`),
    );
    console.log(
      line(
        'delivered by',
        `${fixed((lastAt - started) / 1000, 2)} s after the first start (${fixed((lastAt - appendedBy) / 1000, 2)} s after the last run ended)`,
      ),
    );
    console.log(line('append → receipt', `p50 ${int(percentile(sorted, 50))} ms, p99 ${int(percentile(sorted, 99))} ms, max ${int(sorted.at(-1)!)} ms`));
  } finally {
    await server.stop();
    receiver.closeAllConnections();
    receiver.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
