import { Agent, IncomingMessage, request } from 'node:http';

export interface SseMessage {
  id: string | null;
  event: string | null;
  data: string;
}

/** Minimal HTTP/1.1 client on node:http with one keep-alive agent and no socket cap. */
export class HttpClient {
  readonly agent = new Agent({ keepAlive: true, maxSockets: Infinity });

  /** `headers` go with every request, e.g. `{ authorization: 'Bearer …' }` for one tenant. */
  constructor(
    readonly baseUrl: string,
    readonly headers: Record<string, string> = {},
  ) {}

  json<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((ok, fail) => {
      const req = request(
        `${this.baseUrl}${path}`,
        {
          method,
          agent: this.agent,
          headers: payload ? { ...this.headers, 'content-type': 'application/json', 'content-length': payload.length } : this.headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              ok({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
            } catch {
              fail(new Error(`${method} ${path}: ${res.statusCode} with a non-JSON body: ${text.slice(0, 200)}`));
            }
          });
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end(payload);
    });
  }

  /**
   * Opens an SSE stream and calls `onMessage` for each message with the time (Date.now()) its
   * chunk arrived, before any parsing. Resolves when the server closes the stream.
   */
  sse(path: string, onMessage: (message: SseMessage, receivedAt: number) => void, onOpen?: () => void): Promise<void> {
    return new Promise((ok, fail) => {
      const req = request(
        `${this.baseUrl}${path}`,
        { method: 'GET', agent: this.agent, headers: { ...this.headers, accept: 'text/event-stream' } },
        (res: IncomingMessage) => {
          if (res.statusCode !== 200) {
            res.resume();
            fail(new Error(`GET ${path}: expected 200 text/event-stream, got ${res.statusCode}`));
            return;
          }
          onOpen?.();
          res.setEncoding('utf8');
          let buffer = '';
          res.on('data', (chunk: string) => {
            const receivedAt = Date.now();
            buffer += chunk;
            let end: number;
            while ((end = buffer.indexOf('\n\n')) >= 0) {
              const block = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const message = parseBlock(block);
              if (message) onMessage(message, receivedAt);
            }
          });
          res.on('end', ok);
          res.on('error', fail);
        },
      );
      req.on('error', fail);
      req.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

function parseBlock(block: string): SseMessage | null {
  let id: string | null = null;
  let event: string | null = null;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null; // `retry:` and comments carry no message
  return { id, event, data: data.join('\n') };
}
