import { api, readSse, startExecution, useApp } from '../support/app-harness';
import { holdSocket, HeldSocket, postHead } from './held-socket';
import { openStream } from './stream-client';

/**
 * A request whose headers or body have not all arrived within
 * REQUEST_TIMEOUT_MS is answered 408 (VALIDATION_ERROR, in the envelope) and closed, instead of
 * holding its socket and its buffered body forever; event streams, whose requests are complete,
 * are never cut by it; and past MAX_CONNECTIONS new connections are closed at once.
 */
const TIMEOUT_MS = 1000;
/** Node checks for late requests every quarter of the timeout; the closing linger adds up to 1 s. */
const LATEST_MS = TIMEOUT_MS + 250 + 1000;

const portOf = (baseUrl: string) => Number(new URL(baseUrl).port);

/** `promise`'s value, or null when it has not settled within `ms`. */
const within = <T>(promise: Promise<T>, ms: number): Promise<T | null> =>
  Promise.race([promise, new Promise<null>((resolve) => setTimeout(() => resolve(null), ms))]);

/** Status and parsed JSON body of a raw HTTP/1.1 answer. */
function parseAnswer(text: string): { status: number; body: any } {
  const split = text.indexOf('\r\n\r\n');
  const body = text.slice(split + 4);
  return { status: Number(text.split(' ')[1]), body: body ? JSON.parse(body) : undefined };
}

const expect408 = (text: string) =>
  expect(parseAnswer(text)).toEqual({ status: 408, body: { error: { code: 'VALIDATION_ERROR', message: 'the request did not arrive in time' } } });

describe('REQUEST_TIMEOUT_MS: requests that never finish arriving', () => {
  const app = useApp({ env: { REQUEST_TIMEOUT_MS: String(TIMEOUT_MS), SSE_KEEPALIVE_MS: '200' } });
  const held: HeldSocket[] = [];
  afterEach(() => held.splice(0).forEach((h) => h.socket.destroy()));

  it('200 sockets each holding all but the last byte of a 64 KiB body are all answered 408 and closed in time; /health/live answers throughout', async () => {
    const size = 64 * 1024;
    const partial = postHead('/v1/conversations', size) + `{"title":"${'a'.repeat(size - 12)}`;
    for (let i = 0; i < 200; i++) held.push(await holdSocket(portOf(app.baseUrl), partial));
    const all = Promise.all(held.map((h) => h.closed));
    let settled = false;
    void all.then(() => (settled = true));
    // The server keeps serving while they wait: each probe answers promptly.
    const probes: number[] = [];
    while (!settled && probes.length < 40) {
      const started = performance.now();
      expect((await api(app.baseUrl, 'GET', '/health/live')).status).toBe(200);
      probes.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const closed = await within(all, LATEST_MS + 1000);
    expect(closed).not.toBeNull();
    for (const { text, afterMs } of closed!) {
      expect408(text);
      expect(afterMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(afterMs).toBeLessThan(LATEST_MS + 1000);
    }
    expect(Math.max(...probes)).toBeLessThan(2000);
    expect((await api(app.baseUrl, 'GET', '/health/live')).status).toBe(200);
  });

  it('headers that never finish, a connection that sends nothing and a body that trickles in too slowly are answered 408 and closed', async () => {
    const port = portOf(app.baseUrl);
    const partialHeaders = await holdSocket(port, 'GET /health/live HTTP/1.1\r\nhost: localhost\r\n');
    const silent = await holdSocket(port, '');
    const trickle = await holdSocket(port, postHead('/v1/conversations', 1000));
    held.push(partialHeaders, silent, trickle);
    // One byte every 100 ms: always active, never done (1000 bytes would take 100 s).
    const drip = setInterval(() => trickle.socket.write(' '), 100);
    try {
      for (const h of [partialHeaders, silent, trickle]) {
        const closed = await within(h.closed, LATEST_MS + 1000);
        expect(closed).not.toBeNull();
        expect408(closed!.text);
      }
    } finally {
      clearInterval(drip);
    }
  });

  it('an event stream lasts well past the timeout: the feed keeps its keep-alives, an execution stream runs to its terminal event', async () => {
    const conversationId = (await api(app.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    const started = await startExecution(app.baseUrl, {
      conversationId,
      config: {
        script: [
          { type: 'delay', ms: 3 * TIMEOUT_MS },
          { type: 'text', text: 'late but whole' },
        ],
      },
    });
    expect(started.status).toBe(201);
    const feed = await openStream(app.baseUrl, '/v1/events');
    expect(feed.status).toBe(200);
    try {
      const begun = performance.now();
      const events = await readSse(app.baseUrl, `/v1/executions/${started.body.id}/events`);
      expect(performance.now() - begun).toBeGreaterThan(3 * TIMEOUT_MS - 200);
      expect(events.status).toBe(200);
      expect(
        events.messages
          .filter((m) => m.event)
          .map((m) => m.event)
          .at(-1),
      ).toBe('run.completed');
      // Waited through a few keep-alives (200 ms apart) after the timeout.
      expect(events.messages.filter((m) => m.comment === 'keep-alive').length).toBeGreaterThanOrEqual(5);
      // The feed, opened before the run, is still open: it still has bytes to give.
      expect(await within(feed.next(), 1000)).toEqual(expect.objectContaining({ done: false }));
    } finally {
      await feed.close();
    }
  });
});

describe('MAX_CONNECTIONS: the cap on open connections', () => {
  const app = useApp({ env: { MAX_CONNECTIONS: '5' } });

  const connections = () =>
    new Promise<number>((resolve, reject) => app.app.getHttpServer().getConnections((error, n) => (error ? reject(error) : resolve(n))));

  it('closes a connection over the cap at once, without reading it, and serves again once one closes', async () => {
    const port = portOf(app.baseUrl);
    const held: HeldSocket[] = [];
    for (let i = 0; i < 5; i++) held.push(await holdSocket(port, 'GET /health/live HTTP/1.1\r\nhost: localhost\r\n'));
    while ((await connections()) < 5) await new Promise((resolve) => setTimeout(resolve, 10));
    const over = await holdSocket(port, 'GET /health/live HTTP/1.1\r\nhost: localhost\r\n\r\n');
    const refused = await within(over.closed, 1000);
    expect(refused).toEqual({ text: '', afterMs: expect.any(Number) });
    held.forEach((h) => h.socket.destroy());
    while ((await connections()) > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await api(app.baseUrl, 'GET', '/health/live')).status).toBe(200);
  });
});
