import fc from 'fast-check';
import { connect } from 'node:net';
import { EVENT_STORE, EventStore } from '../../src/event-store/event-store';
import { useApp } from '../support/app-harness';

/**
 * Every error in the envelope, below what an HTTP client lets a caller send: request
 * lines and header lines built from raw bytes (bad methods, targets, versions, header names and
 * values, repeated and conflicting framing headers), written straight to a socket. Whatever Node,
 * Fastify or the app makes of them, the answer is below 500, an error is the binding's envelope,
 * and a refused request appends nothing.
 */
const KEY = 'raw-key-0123456789abcdef';
const RUNS = Math.ceil(Number(process.env.FUZZ_RUNS ?? 400) / 2);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** Node's own statuses for requests it cannot parse (envelope written by clientErrorHandler). */
const STATUS_CODES_OK: Record<number, string[]> = {
  400: ['VALIDATION_ERROR'],
  401: ['UNAUTHENTICATED'],
  404: ['NOT_FOUND', 'PROVIDER_NOT_FOUND', 'ACTION_NOT_FOUND'],
  408: ['VALIDATION_ERROR'],
  409: ['IDEMPOTENCY_CONFLICT', 'INVALID_STATE', 'ACTION_ALREADY_RESOLVED'],
  413: ['PAYLOAD_TOO_LARGE'],
  415: ['VALIDATION_ERROR'],
  422: ['CAPABILITY_UNSUPPORTED'],
  429: ['RATE_LIMITED'],
  431: ['VALIDATION_ERROR'],
};

interface Parsed {
  status: number;
  head: string;
  body: string;
}

/**
 * Writes the bytes, reads until the server closes (Connection: close), parses the first final
 * answer. A request whose headers promise more body than was sent leaves the server waiting: after
 * a second without an answer the client ends its side (as a client that gave up would), which the
 * server takes as an incomplete request. Ending at once would be a client that never reads its
 * answer: Node aborts a request whose client half-closed.
 */
function exchange(port: number, bytes: Buffer): Promise<Parsed | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    const giveUp = setTimeout(() => chunks.length === 0 && socket.end(), 1000);
    const timer = setTimeout(() => socket.destroy(), 3000);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    socket.on('close', () => {
      clearTimeout(timer);
      clearTimeout(giveUp);
      let text = Buffer.concat(chunks).toString('latin1');
      // Skip interim answers (100 Continue).
      while (/^HTTP\/1\.[01] 1\d\d /.test(text)) text = text.slice(text.indexOf('\r\n\r\n') + 4);
      if (text === '') return resolve(null);
      const split = text.indexOf('\r\n\r\n');
      const head = text.slice(0, split);
      let body = text.slice(split + 4);
      const length = /\r\ncontent-length: *(\d+)/i.exec(head);
      if (length) body = body.slice(0, Number(length[1]));
      else if (/\r\ntransfer-encoding: *chunked/i.test(head)) body = dechunk(body);
      resolve({ status: Number(head.split(' ')[1]), head, body: Buffer.from(body, 'latin1').toString('utf8') });
    });
  });
}

function dechunk(text: string): string {
  let out = '';
  for (;;) {
    const line = text.indexOf('\r\n');
    const size = parseInt(text.slice(0, line), 16);
    if (!(size > 0)) return out;
    out += text.slice(line + 2, line + 2 + size);
    text = text.slice(line + 2 + size + 2);
  }
}

const byteString = (min: number, max: number, maxLength: number) =>
  fc.array(fc.integer({ min, max }), { maxLength }).map((codes) => String.fromCharCode(...codes));

const method = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom('GET', 'POST', 'POST', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE') },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{1,8}$/) },
  { weight: 1, arbitrary: fc.constantFrom('get', 'G ET', '', 'GET\t', 'POST/') },
);
const target = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.constantFrom(
      '/v1/runtime',
      '/v1/conversations',
      '/v1/executions',
      '/v1/events',
      '/v1/executions/x:cancel',
      '/v1/executions/x/actions/y:respond',
      '/health/ready',
      '/docs/json',
      '/metrics',
    ),
  },
  {
    weight: 3,
    arbitrary: fc.tuple(fc.constantFrom('/v1/conversations/', '/v1/executions/', '/docs/', '/'), byteString(0x21, 0xff, 12)).map(([a, b]) => a + b),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '*',
      '',
      'v1/runtime',
      'http://x/v1/runtime',
      '//v1/runtime',
      '/v1/runtime?a=%',
      '/v1/../v1/runtime',
      '/%',
      '/v1/runtime#x',
      '/v1/ runtime',
    ),
  },
);
const version = fc.oneof(
  { weight: 20, arbitrary: fc.constant('HTTP/1.1') },
  { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', 'HTTP/1.2', 'HTTP/x', 'http/1.1', '') },
);
const headerName = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      'Authorization',
      'Content-Type',
      'Accept',
      'Last-Event-ID',
      'Expect',
      'Origin',
      'X-Request-Id',
      'Range',
      'If-Match',
      'Transfer-Encoding',
      'Content-Length',
      'Host',
      'Upgrade',
      'Content-Encoding',
      'TE',
      'Trailer',
    ),
  },
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]{0,15}$/) },
  { weight: 1, arbitrary: byteString(0x01, 0xff, 10).map((s) => s.replace(/[\r\n:]/g, '')) },
);
const headerValue = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      `Bearer ${KEY}`,
      'application/json',
      'text/event-stream',
      '100-continue',
      'foo',
      'chunked',
      'gzip',
      '0',
      '5',
      'bytes=0-1',
      '*',
      '',
    ),
  },
  { weight: 3, arbitrary: byteString(0x20, 0x7e, 30) },
  { weight: 1, arbitrary: byteString(0x00, 0xff, 20).map((s) => s.replace(/[\r\n]/g, '')) },
);
const body = fc.oneof(
  fc.constant(''),
  fc.constantFrom('{}', '{"title":"raw"}', '{', 'null', 'x'.repeat(100)),
  fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v)),
);
const framing = fc.constantFrom('length', 'length', 'chunked', 'none');

describe('raw request fuzz', () => {
  const app = useApp({ env: { API_KEYS: `raw:${KEY}`, AUTH_FAILURES_PER_MINUTE: '0' } });
  const counts = new Map<string, number>();
  afterAll(() => process.stderr.write(`raw request fuzz: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries([...counts].sort()))}\n`));

  it('answers every raw request below 500, in the envelope when it is an error, and appends nothing then', async () => {
    const store = app.app.get<EventStore>(EVENT_STORE);
    const port = Number(new URL(app.baseUrl).port);
    const request = fc.record({
      method,
      target,
      version,
      host: fc.oneof({ weight: 9, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      auth: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      headers: fc.array(fc.tuple(headerName, headerValue), { maxLength: 3 }),
      body,
      framing,
    });
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const lines = [`${r.method} ${r.target} ${r.version}`];
        if (r.host) lines.push('Host: fuzz');
        if (r.auth) lines.push(`Authorization: Bearer ${KEY}`);
        if (r.body) lines.push('Content-Type: application/json');
        for (const [name, value] of r.headers) lines.push(`${name}: ${value}`);
        const bodyBytes = Buffer.from(r.body, 'utf8');
        if (r.framing === 'length') lines.push(`Content-Length: ${bodyBytes.length}`);
        if (r.framing === 'chunked') lines.push('Transfer-Encoding: chunked');
        lines.push('Connection: close');
        const payload =
          r.framing === 'chunked'
            ? Buffer.concat([
                Buffer.from(bodyBytes.length > 0 ? `${bodyBytes.length.toString(16)}\r\n` : ''),
                bodyBytes,
                Buffer.from(bodyBytes.length > 0 ? '\r\n0\r\n\r\n' : '0\r\n\r\n'),
              ])
            : r.framing === 'length'
              ? bodyBytes
              : Buffer.alloc(0);
        const bytes = Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), payload]);
        const before = await store.headPosition();
        const res = await exchange(port, bytes);
        const seen = `${JSON.stringify(bytes.toString('latin1'))} -> ${res ? `${res.head.split('\r\n')[0]} ${res.body.slice(0, 200)}` : 'no answer'}`;
        counts.set(String(res?.status ?? 'none'), (counts.get(String(res?.status ?? 'none')) ?? 0) + 1);
        // CONNECT is a proxy's method: Node closes the connection without an answer.
        if (!res) {
          if (r.method === 'CONNECT') return;
          throw new Error(`no answer: ${seen}`);
        }
        if (!(res.status > 0) || res.status >= 500) throw new Error(`bad status: ${seen}`);
        if (res.status < 400) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return;
        }
        if (r.method !== 'HEAD') {
          let parsed: any;
          try {
            parsed = JSON.parse(res.body);
          } catch {
            throw new Error(`error body is not JSON: ${seen}`);
          }
          const codes = STATUS_CODES_OK[res.status] ?? [];
          const keys = Object.keys(parsed?.error ?? {});
          if (
            Object.keys(parsed).join() !== 'error' ||
            keys.slice(0, 2).join() !== 'code,message' ||
            keys.some((k, i) => i > 1 && k !== 'details') ||
            !codes.includes(parsed.error.code)
          ) {
            throw new Error(`not the envelope: ${seen}`);
          }
          if (!/\r\ncontent-type: application\/json/i.test(res.head)) throw new Error(`error without a JSON content-type: ${seen}`);
        }
        const after = await store.headPosition();
        if (after !== before) throw new Error(`an error appended ${after - before} event(s): ${seen}`);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: !!process.env.FUZZ_DEBUG },
    );
    // A passing run takes seconds; shrinking a failure takes longer.
  }, 180_000);
});
