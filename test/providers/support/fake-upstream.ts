import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** One Server-Sent Events message: `event:` when given, `data:` as JSON unless already a string. */
export interface SseFrame {
  event?: string;
  data: unknown;
}

/** How the fake answers one request, taken in order from its queue. */
export type Reply =
  /** A plain JSON answer, e.g. an error status with the API's error body. */
  | { status: number; headers?: Record<string, string>; json?: unknown }
  /** A 200 event stream; `hang` keeps it open after the frames, `drop` destroys the socket after them. */
  | { sse: SseFrame[]; gapMs?: number; hang?: boolean; drop?: boolean };

export interface UpstreamRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** Resolves when the client goes away before the response ended (an aborted request). */
  disconnected: Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A loopback HTTP server that plays an upstream model API for the official SDKs: it records every
 * request (headers, parsed body) and answers from a queue of replies written in the provider's
 * wire format. An unexpected request gets a 599 so that a test sees it.
 */
export class FakeUpstream {
  readonly requests: UpstreamRequest[] = [];
  private readonly replies: Reply[] = [];
  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<FakeUpstream> {
    let upstream!: FakeUpstream;
    const server = createServer((req, res) => void upstream.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream = new FakeUpstream(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return upstream;
  }

  /** Queues replies for the next requests, in order. */
  reply(...replies: Reply[]): void {
    this.replies.push(...replies);
  }

  /** Forgets what earlier tests left behind. */
  reset(): void {
    this.requests.length = 0;
    this.replies.length = 0;
  }

  async waitForRequests(count: number, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`upstream saw ${this.requests.length} requests, expected ${count}`);
      await sleep(10);
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const disconnected = new Promise<void>((resolve) => res.on('close', () => (res.writableEnded ? undefined : resolve())));
    this.requests.push({ method: req.method!, url: req.url!, headers: req.headers, body: text ? JSON.parse(text) : undefined, disconnected });
    const reply = this.replies.shift();
    if (!reply) {
      res.writeHead(599, { 'content-type': 'application/json' }).end('{"error":{"message":"no reply scripted"}}');
      return;
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.json ?? {}));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const frame of reply.sse) {
      if (res.destroyed) return;
      const data = typeof frame.data === 'string' ? frame.data : JSON.stringify(frame.data);
      res.write(`${frame.event ? `event: ${frame.event}\n` : ''}data: ${data}\n\n`);
      if (reply.gapMs) await sleep(reply.gapMs);
    }
    if (reply.drop) res.socket?.destroy();
    else if (!reply.hang) res.end();
  }
}
