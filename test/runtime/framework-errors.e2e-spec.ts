import { connect } from 'node:net';
import { api, startApp, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/**
 * `GET /v1/conversations/%E0%A4%A` answered Fastify's own body. Errors Fastify
 * and Node raise before any hook or Nest filter runs must come in the binding's envelope too.
 */

/** Sends bytes as they are (no client fixes them up) and parses the one response. */
function rawRequest(port: number, request: string): Promise<{ status: number; headers: string; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => {
      data += chunk;
      const split = data.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(data);
      if (split !== -1 && length && Buffer.byteLength(data.slice(split + 4)) >= Number(length[1])) socket.end();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const split = data.indexOf('\r\n\r\n');
      const body = data.slice(split + 4);
      resolve({ status: Number(data.split(' ')[1]), headers: data.slice(0, split), body: body ? JSON.parse(body) : undefined });
    });
  });
}

const envelope = (code: string) => ({ error: { code, message: expect.any(String) } });

describe('framework errors in the envelope', () => {
  const app = useApp();
  const port = () => Number(new URL(app.baseUrl).port);

  it.each(['/v1/conversations/%E0%A4%A', '/v1/executions/%ZZ', '/v1/executions/%E0%A4%A/events', '/v1/nope/%'])(
    'a malformed percent-encoding in %s is 400 VALIDATION_ERROR',
    async (path) => {
      expectError(await api(app.baseUrl, 'GET', path), 400, 'VALIDATION_ERROR');
    },
  );

  it('a malformed percent-encoding on a POST with a body is 400 too, and the body is drained', async () => {
    const res = await api(app.baseUrl, 'POST', '/v1/executions/%E0%A4%A:cancel', { reason: 'x'.repeat(100_000) });
    expectError(res, 400, 'VALIDATION_ERROR');
  });

  it.each([
    ['a header without a colon', 'GET /v1/runtime HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400],
    ['a space in a header name', 'GET /v1/runtime HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n', 400],
    ['a non-numeric Content-Length', 'POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    ['two Content-Lengths', 'POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}', 400],
    ['an unknown method token', 'FROB /v1/runtime HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ["headers over Node's limit", `GET /v1/runtime HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20 * 1024)}\r\n\r\n`, 431],
  ])('%s is answered in the envelope and the connection closes', async (_, request, status) => {
    const res = await rawRequest(port(), request);
    expect(res.status).toBe(status);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    expect(res.body).toEqual(envelope('VALIDATION_ERROR'));
  });

  it('a missing Host header (HTTP/1.1) is 400 in the envelope, and HTTP/1.0 needs none', async () => {
    const missing = await rawRequest(port(), 'GET /v1/runtime HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'an HTTP/1.1 request needs a Host header' } });
    const old = await rawRequest(port(), 'GET /v1/runtime HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
  });

  it('a malformed Content-Type is 415 in the envelope', async () => {
    const res = await rawRequest(port(), 'POST /v1/conversations HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: ;;\r\nContent-Length: 2\r\n\r\n{}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual(envelope('VALIDATION_ERROR'));
  });
});

describe('a request that arrives while the server closes', () => {
  const refused = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(true));
    });

  it("is 503 SERVICE_UNAVAILABLE in the envelope with Retry-After, not Fastify's own 503 body", async () => {
    const app = await startApp();
    const port = Number(new URL(app.baseUrl).port);
    // A request still arriving keeps its connection open through the close; the next request
    // pipelined on that connection is the one Fastify used to answer itself.
    const socket = connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /v1/conversations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{');
    await new Promise((r) => setTimeout(r, 50));
    const closed = app.close();
    while (!(await refused(port))) await new Promise((r) => setTimeout(r, 10));
    socket.write('}GET /v1/runtime HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('close', resolve));
    await closed;
    const second = data.slice(data.indexOf('HTTP/1.1', 1));
    expect(data.startsWith('HTTP/1.1 201')).toBe(true);
    expect(second).toMatch(/^HTTP\/1.1 503 /);
    expect(second).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(JSON.parse(second.slice(second.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'SERVICE_UNAVAILABLE', message: 'the server is shutting down; retry shortly' },
    });
  });
});
