/**
 * The baseline for paced streaming: a bare node:http server (no framework, no store) that plays
 * a scripted run's steps as the scripted provider does (`text` → one delta event stamped with
 * the clock, `delay` → a timer) and serves each run's events over SSE — backlog, then live —
 * in the same envelopes and order as Runledger, so the same client checks both. Its own process.
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';

type Step = { type: 'text'; text: string } | { type: 'delay'; ms: number };

interface Run {
  events: string[];
  followers: Set<ServerResponse>;
  ended: boolean;
}

const runs = new Map<string, Run>();
let ids = 0;

function body(request: IncomingMessage): Promise<any> {
  return new Promise((ok) => {
    let text = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    request.on('end', () => ok(text ? JSON.parse(text) : {}));
  });
}

function emit(id: string, run: Run, type: string, data: Record<string, unknown>, last = false): void {
  const sequence = run.events.length + 1;
  const message = `id: ${sequence}\nevent: ${type}\ndata: ${JSON.stringify({ executionId: id, sequence, type, occurredAt: new Date().toISOString(), data })}\n\n`;
  run.events.push(message);
  for (const follower of run.followers) {
    follower.write(message);
    if (last) follower.end();
  }
  if (last) run.ended = true;
}

async function play(id: string, run: Run, steps: Step[]): Promise<void> {
  emit(id, run, 'run.started', {});
  let text = '';
  for (const step of steps) {
    if (step.type === 'delay') await new Promise((ok) => setTimeout(ok, step.ms));
    else {
      text += step.text;
      emit(id, run, 'output.text.delta', { delta: step.text });
    }
  }
  emit(id, run, 'output.text.done', { text });
  emit(id, run, 'run.completed', {}, true);
}

const json = (response: ServerResponse, status: number, value: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
};

const server = createServer((request, response) => {
  const url = request.url ?? '';
  if (request.method === 'POST' && url === '/v1/conversations') return void body(request).then(() => json(response, 201, { id: `c${++ids}` }));
  if (request.method === 'POST' && url === '/v1/executions') {
    return void body(request).then((start: { config: { script: Step[] } }) => {
      const id = `e${++ids}`;
      const run: Run = { events: [], followers: new Set(), ended: false };
      runs.set(id, run);
      json(response, 201, { id, status: 'queued' });
      setImmediate(() => void play(id, run, start.config.script));
    });
  }
  const match = /^\/v1\/executions\/([^/]+)\/events$/.exec(url);
  const run = match && runs.get(match[1]);
  if (!run) return json(response, 404, { error: { code: 'NOT_FOUND', message: url } });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const message of run.events) response.write(message);
  if (run.ended) return void response.end();
  run.followers.add(response);
  request.on('close', () => run.followers.delete(response));
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'));
