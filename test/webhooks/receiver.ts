import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: { type: string; timestamp: string; data: { executionId: string; sequence: number; type: string; position: number; occurredAt: string; data: unknown } };
  receivedAt: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
}

/** A webhook receiver on 127.0.0.1 only: answers each request with what `reply` says (200 unless told). */
export class Receiver {
  readonly received: Received[] = [];
  reply: (request: Received, count: number) => Reply | number = () => 200;
  /** How long each answer waits: deliveries stay in flight that long. */
  delayMs = 0;
  private server!: Server;
  private waiters: (() => void)[] = [];
  url = '';

  static async start(path = '/hook'): Promise<Receiver> {
    const receiver = new Receiver();
    await receiver.listen(0, path);
    return receiver;
  }

  async listen(port: number, path = '/hook'): Promise<void> {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const request: Received = { headers: req.headers, body, json: JSON.parse(body), receivedAt: Date.now() };
        this.received.push(request);
        const answer = this.reply(request, this.received.length);
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
        setTimeout(() => {
          if (!res.destroyed) res.writeHead(status, headers).end();
          for (const wake of this.waiters.splice(0)) wake();
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  /** Waits until `done(received)`; fails after `timeoutMs` with what arrived. */
  async until(done: (received: Received[]) => boolean, timeoutMs = 15_000): Promise<Received[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.received)) {
      if (Date.now() > deadline) throw new Error(`receiver: condition not met after ${timeoutMs} ms; got ${this.received.map((r) => r.json.type).join(', ')}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
    return this.received;
  }

  /** The deliveries of one execution, in the order they arrived. */
  of(executionId: string): Received[] {
    return this.received.filter((r) => r.json.data.executionId === executionId);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Verifies with the Standard Webhooks reference library; throws when the signature does not hold. */
export function verify(secret: string, request: Received): unknown {
  const headers = {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(request.body, headers);
}

/** Settings every delivering test needs: loopback receivers over plain http, a short schedule. */
export const DELIVERY_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE_MS: '0,50,50' };
