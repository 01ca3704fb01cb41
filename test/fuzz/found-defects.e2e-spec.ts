import { connect } from 'node:net';
import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/** What the route fuzz tests found, pinned down one by one. */

/** One request over a fresh socket, answered and closed by the server (Connection: close). */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let data = '';
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.setEncoding('latin1').on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
    socket.on('close', () => (clearTimeout(timer), resolve(data)));
  });
}

describe('defects the route fuzz found', () => {
  const app = useApp({ env: { API_KEYS: 'found:found-key-0123456789abc' } });
  const port = () => Number(new URL(app.baseUrl).port);

  it('a path under /docs/ that the static files refuse (`/docs/x/.`) is 404 NOT_FOUND, not 500', async () => {
    expectError(await api(app.baseUrl, 'GET', '/docs/x/.'), 404, 'NOT_FOUND');
  });

  it('a NUL in a /docs/ path is 400 VALIDATION_ERROR, not 500', async () => {
    expectError(await api(app.baseUrl, 'GET', '/docs/%00'), 400, 'VALIDATION_ERROR');
  });

  it("a docs file's unsatisfiable Range (416) and failed precondition (412) are in the envelope, not 500", async () => {
    expectError(await api(app.baseUrl, 'GET', '/docs/swagger-ui.css', undefined, { range: 'bytes=99999999-' }), 416, 'VALIDATION_ERROR');
    expectError(await api(app.baseUrl, 'GET', '/docs/swagger-ui.css', undefined, { 'if-match': '"nope"' }), 412, 'VALIDATION_ERROR');
    expect((await api(app.baseUrl, 'GET', '/docs/swagger-ui.css', undefined, { range: 'bytes=0-5' })).status).toBe(206);
  });

  it('HEAD on an event stream answers its headers at once and holds no stream (it never answered)', async () => {
    const started = Date.now();
    const res = await rawExchange(
      port(),
      'HEAD /v1/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer found-key-0123456789abc\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n',
    );
    expect(res).toMatch(/^HTTP\/1\.1 200 /);
    expect(res).toMatch(/\r\ncontent-type: text\/event-stream/i);
    expect(res.slice(res.indexOf('\r\n\r\n') + 4)).toBe('');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('an Expect other than 100-continue is ignored: the request is served, auth first (it was a bare 417)', async () => {
    const served = await rawExchange(
      port(),
      'GET /v1/runtime HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer found-key-0123456789abc\r\nExpect: foo\r\nConnection: close\r\n\r\n',
    );
    expect(served).toMatch(/^HTTP\/1\.1 200 /);
    const refused = await rawExchange(port(), 'GET /v1/runtime HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n');
    expect(refused).toMatch(/^HTTP\/1\.1 401 /);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    const posted = await rawExchange(
      port(),
      'POST /v1/conversations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer found-key-0123456789abc\r\nExpect: something-else\r\nContent-Type: application/json\r\nContent-Length: 13\r\nConnection: close\r\n\r\n{"title":"x"}',
    );
    expect(posted).toMatch(/^HTTP\/1\.1 201 /);
  });
});
