import { api, useApp } from '../support/app-harness';
import { holdSocket } from './held-socket';
import { eventually, OpenStream, openStream } from './stream-client';

/**
 * A stream's place under SSE_MAX_STREAMS_PER_TENANT is given back
 * whenever its connection closes — also for streams pipelined behind another request on one
 * socket, whose queued responses never see a 'close' of their own, and for a client that left
 * before the route had started its stream. Leaked places made every later stream of the tenant
 * 429 until a restart.
 */
const CAP = 3;

describe('SSE stream places are given back when their socket closes', () => {
  const app = useApp({ env: { SSE_MAX_STREAMS_PER_TENANT: String(CAP) } });
  const port = () => Number(new URL(app.baseUrl).port);
  const open: OpenStream[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
  });

  /** An execution that waits 30 s, so that its event stream stays open. */
  const slowExecution = async () => {
    const conversationId = (await api(app.baseUrl, 'POST', '/v1/conversations', {})).body.id;
    const res = await api(app.baseUrl, 'POST', '/v1/executions', {
      conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: { script: [{ type: 'delay', ms: 30000 }] },
    });
    expect(res.status).toBe(201);
    return res.body.id as string;
  };
  const sseRequest = (path: string) => `GET ${path} HTTP/1.1\r\nhost: localhost\r\naccept: text/event-stream\r\n\r\n`;

  /** Opens a stream; a 200 is kept (closed after the test), anything else answered as is. */
  const tryStream = async (path: string) => {
    const s = await openStream(app.baseUrl, path);
    if (s.status === 200) open.push(s);
    return s.status;
  };
  /** The server's own count of open streams (runledger_sse_streams_open): probing with a stream would take a place. */
  const openStreams = async () => {
    const metrics = await api(app.baseUrl, 'GET', '/metrics');
    const line = /^runledger_sse_streams_open (\d+)$/m.exec(metrics.text);
    // A scrape that did not answer (a loaded machine) is no count: `eventually` asks again.
    if (!line) throw new Error(`/metrics answered ${metrics.status} without runledger_sse_streams_open`);
    return Number(line[1]);
  };
  /** The tenant can open CAP streams again, and not one more. */
  const expectAllPlacesFree = async () => {
    await eventually(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
      const statuses: number[] = [];
      for (let i = 0; i < CAP; i++) statuses.push(await tryStream('/v1/events'));
      return statuses.every((status) => status === 200);
    });
    expect(await tryStream('/v1/events')).toBe(429);
  };

  it('streams pipelined behind a long one on one socket give their places back when the socket is destroyed (three times over)', async () => {
    const execution = await slowExecution();
    for (let round = 0; round < 3; round++) {
      // The feed never ends: the execution streams behind it wait in Node's queue, holding places.
      const pipelined = sseRequest('/v1/events') + sseRequest(`/v1/executions/${execution}/events`).repeat(CAP);
      const socket = await holdSocket(port(), pipelined);
      try {
        await eventually(async () => (await openStreams().catch(() => -1)) === CAP);
        expect(await tryStream('/v1/events')).toBe(429);
      } finally {
        socket.socket.destroy();
      }
      await eventually(async () => (await openStreams().catch(() => -1)) === 0);
      await expectAllPlacesFree();
      await Promise.all(open.splice(0).map((s) => s.close()));
    }
    await api(app.baseUrl, 'POST', `/v1/executions/${execution}:cancel`, {});
  });

  it('a client that leaves before its stream has started leaves no place taken', async () => {
    const execution = await slowExecution();
    const sockets = await Promise.all(Array.from({ length: 20 }, () => holdSocket(port(), sseRequest(`/v1/executions/${execution}/events`))));
    for (const { socket } of sockets) socket.destroy();
    await eventually(async () => (await openStreams().catch(() => -1)) === 0);
    await expectAllPlacesFree();
    await api(app.baseUrl, 'POST', `/v1/executions/${execution}:cancel`, {});
  });
});
