import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';

/** A span as an OTLP/HTTP JSON export carries it, with its attributes flattened. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
  resource: Record<string, unknown>;
  scope: string;
  /** 0 unset, 1 OK, 2 ERROR. */
  status: number;
  events: string[];
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

const flatten = (attributes: OtlpAttribute[] = []): Record<string, unknown> =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue)),
    ]),
  );

/**
 * A local OpenTelemetry collector stand-in: accepts `POST /v1/traces` in the OTLP/HTTP JSON
 * encoding (OTEL_EXPORTER_OTLP_PROTOCOL=http/json) and keeps every span it is sent.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Anything else it was sent (another path, another encoding): should stay empty. */
  readonly unexpected: string[] = [];
  private server!: Server;

  static async start(): Promise<OtlpReceiver> {
    const receiver = new OtlpReceiver();
    receiver.server = createServer((request, response) => receiver.receive(request, response));
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Resolves with the spans received once `ready(spans)` holds; rejects after `timeoutMs`. */
  async waitFor(ready: (spans: ReceivedSpan[]) => boolean, timeoutMs = 10000): Promise<ReceivedSpan[]> {
    const deadline = Date.now() + timeoutMs;
    while (!ready(this.spans)) {
      if (Date.now() > deadline) throw new Error(`spans not received in ${timeoutMs} ms; got: ${this.spans.map((s) => s.name).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return this.spans;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private receive(request: IncomingMessage, response: ServerResponse): void {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces' || !String(request.headers['content-type']).startsWith('application/json')) {
        this.unexpected.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      } else {
        this.collect(JSON.parse(body));
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }

  private collect(payload: any): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const resource = flatten(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          this.spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            attributes: flatten(span.attributes),
            links: (span.links ?? []).map((link: any) => ({ traceId: link.traceId, spanId: link.spanId })),
            resource,
            scope: scopeSpans.scope?.name,
            status: span.status?.code ?? 0,
            events: (span.events ?? []).map((event: any) => event.name),
          });
        }
      }
    }
  }
}
