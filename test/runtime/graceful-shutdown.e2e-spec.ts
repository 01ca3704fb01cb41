import { spawnSync } from 'node:child_process';
import * as http from 'node:http';
import { connect } from 'node:net';
import { api, readSse, SseMessage, tempSqlitePath } from '../support/app-harness';
import { built, exitWithin, killLeftovers, launch, MAIN } from './compiled-server';

/**
 * SIGTERM with an SSE client attached hung the process, because Nest closed
 * the HTTP server (which waits for hijacked responses) before it ended the streams. The streams
 * must end cleanly first, the process exit 0 in time, and a client resume after the restart.
 */

interface StreamEnd {
  status: number;
  messages: SseMessage[];
  /** How the response ended: its final chunk ('end'), or a reset / abort ('error'). */
  ending: Promise<'end' | `error ${string}`>;
}

/** An SSE client on node:http that reports whether the response ended with its final chunk. */
function openStream(baseUrl: string, path: string, headers: Record<string, string> = {}): Promise<StreamEnd> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${baseUrl}${path}`, { headers: { accept: 'text/event-stream', ...headers } });
    request.on('error', reject);
    request.on('response', (response) => {
      const messages: SseMessage[] = [];
      let buffer = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) !== -1) {
          messages.push(parse(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
        }
      });
      const ending = new Promise<'end' | `error ${string}`>((settle) => {
        response.once('end', () => settle(response.complete ? 'end' : 'error incomplete'));
        response.once('aborted', () => settle('error aborted'));
        response.once('error', (error: NodeJS.ErrnoException) => settle(`error ${error.code ?? error.message}`));
      });
      resolve({ status: response.statusCode!, messages, ending });
    });
  });
}

function parse(block: string): SseMessage {
  const message: SseMessage = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) message.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(':');
      (message as Record<string, string>)[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
    }
  }
  return message;
}

async function until(check: () => boolean, what: string, ms = 10000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const events = (messages: SseMessage[]) => messages.filter((m) => m.id !== undefined);

const describeBuilt = built ? describe : describe.skip;
if (!built) process.stderr.write(`graceful shutdown suite skipped: ${MAIN} is missing; run npm run build (npm test does)\n`);

describeBuilt('graceful shutdown with open event streams (compiled server)', () => {
  afterEach(killLeftovers);

  it('SIGTERM ends every SSE stream cleanly, exits 0 within 10 s, and a resumed client gets every event exactly once', async () => {
    const sqlitePath = tempSqlitePath();
    const first = await launch({ SQLITE_PATH: sqlitePath });
    const conversationId = (await api(first.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    const started = await api(first.baseUrl, 'POST', '/v1/executions', {
      conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: {
        script: [
          { type: 'text', text: 'before ' },
          { type: 'delay', ms: 60000 },
          { type: 'text', text: 'after' },
        ],
      },
    });
    expect(started.status).toBe(201);
    const id = started.body.id;
    const path = `/v1/executions/${id}/events`;

    // Two kinds of client: node:http, and fetch (undici) as browsers' EventSource polyfills use.
    const nodeClient = await openStream(first.baseUrl, path);
    expect(nodeClient.status).toBe(200);
    await until(() => events(nodeClient.messages).some((m) => m.event === 'output.text.delta'), 'the first delta');
    let fetchSeen: SseMessage[] = [];
    const fetchClient = readSse(first.baseUrl, path, {}, (messages) => {
      fetchSeen = messages;
      return false;
    });
    await until(() => events(fetchSeen).some((m) => m.event === 'output.text.delta'), 'the first delta over fetch');

    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    expect(await exitWithin(first, 10000)).toEqual({ code: 0, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(10000);
    expect(await nodeClient.ending).toBe('end');
    // fetch rejects its reader on a reset; a clean end resolves with every message read.
    const viaFetch = await fetchClient;
    expect(viaFetch.status).toBe(200);
    expect(events(viaFetch.messages).map((m) => m.id)).toEqual(events(nodeClient.messages).map((m) => m.id));
    expect(first.output()).toContain('ending 2 event stream(s) for shutdown');

    // The restart ends the run that was in flight; a client resumes where it stopped.
    const second = await launch({ SQLITE_PATH: sqlitePath });
    const seen = events(nodeClient.messages);
    const lastSeen = seen[seen.length - 1].id!;
    const resumed = await openStream(second.baseUrl, path, { 'last-event-id': lastSeen });
    expect(resumed.status).toBe(200);
    expect(await resumed.ending).toBe('end');
    const after = events(resumed.messages);
    expect(after.every((m) => Number(m.id) > Number(lastSeen))).toBe(true);

    const replay = (await api(second.baseUrl, 'GET', path)).body.events as any[];
    const union = new Map([...seen, ...after].map((m) => [m.id!, JSON.parse(m.data!)]));
    expect([...union.keys()]).toEqual(replay.map((e) => String(e.sequence)));
    expect([...union.values()]).toEqual(replay);
    expect(replay[replay.length - 1]).toMatchObject({ type: 'run.failed', data: { error: { code: 'RUNTIME_INTERRUPTED' } } });
    expect(replay.filter((e) => e.type === 'output.text.delta').map((e) => e.data.delta)).toEqual(['before ']);

    second.child.kill('SIGTERM');
    expect(await exitWithin(second, 10000)).toEqual({ code: 0, signal: null });
  });

  it('a keep-alive request still in flight when the HTTP server closes does not hold the process: its connection closes once answered', async () => {
    const server = await launch({ SQLITE_PATH: tempSqlitePath() });
    const { port } = new URL(server.baseUrl);
    // A POST whose body is still arriving when SIGTERM comes: its answer goes out after the server
    // stopped listening, on a connection the client would keep alive (Fastify keeps idle ones 72 s).
    const body = JSON.stringify({ title: 'in flight at shutdown' });
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write(
      `POST /v1/conversations HTTP/1.1\r\nhost: x\r\nconnection: keep-alive\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    socket.write(body.slice(0, 5));
    await new Promise((r) => setTimeout(r, 200));
    server.child.kill('SIGTERM');
    await until(() => server.output().includes('halted') || server.output().includes('SIGTERM received'), 'the shutdown to begin');
    await new Promise((r) => setTimeout(r, 300));
    socket.write(body.slice(5));
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
    await closed;
    // The server closed the connection once the answer was out.
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
  });

  it('SIGTERM to `npm start` reaches node (the script execs it) and the server exits 0', async () => {
    const npm = spawnSync('npm', ['--version'], { encoding: 'utf8' });
    expect(npm.status).toBe(0);
    // --ignore-scripts skips prestart's build (npm test has built dist/ already) but runs start.
    const server = await launch({ SQLITE_PATH: tempSqlitePath() }, { file: 'npm', args: ['start', '--ignore-scripts', '--silent'] });
    const port = Number(new URL(server.baseUrl).port);
    const conversationId = (await api(server.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    const id = (
      await api(server.baseUrl, 'POST', '/v1/executions', {
        conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: { script: [{ type: 'delay', ms: 60000 }] },
      })
    ).body.id;
    const stream = await openStream(server.baseUrl, `/v1/executions/${id}/events`);
    await until(() => events(stream.messages).length >= 2, 'the stream backlog');

    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
    expect(await stream.ending).toBe('end');
    // Nothing is left listening: node itself got the signal, not just npm.
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });
    expect(refused).toBe(true);
  });
});
