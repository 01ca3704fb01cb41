import type { OpenAPIObject } from '@nestjs/swagger';
import Ajv, { ValidateFunction } from 'ajv';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** One response as the client received it. */
export interface RecordedResponse {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  body: string;
  /** The whole response was written (not cut short by a closed connection, or by the cap below). */
  complete: boolean;
}

/** Enough for any page the suites read; a longer SSE stream is checked up to here. */
const MAX_RECORDED_BYTES = 4 * 1024 * 1024;

/**
 * Records every response the server writes, as the app's own handlers (Fastify, Nest, the SSE
 * responders) write it: the listener runs before Fastify's, so even answers from the first hooks
 * (401, 429) are seen. Node's own answers to requests it cannot parse (400, 408, 431) never reach a
 * `request` listener and are not recorded.
 */
export function recordResponses(server: Server): RecordedResponse[] {
  const recorded: RecordedResponse[] = [];
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function' || truncated) return;
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      if (bytes + buffer.length > MAX_RECORDED_BYTES) truncated = true;
      else {
        chunks.push(buffer);
        bytes += buffer.length;
      }
    };
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((...args: unknown[]) => (keep(args[0], args[1]), write(...args))) as ServerResponse['write'];
    response.end = ((...args: unknown[]) => (keep(args[0], args[1]), end(...args))) as ServerResponse['end'];
    response.once('close', () => {
      if (!response.headersSent) return;
      // The header block as sent: headers given to writeHead() alone are not in getHeader().
      const sent = (response as ServerResponse & { _header?: string })._header ?? '';
      const contentType = /^content-type:[ \t]*(.*?)\r?$/im.exec(sent)?.[1] ?? response.getHeader('content-type');
      recorded.push({
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        status: response.statusCode,
        contentType: contentType === undefined ? undefined : String(contentType),
        body: Buffer.concat(chunks).toString('utf8'),
        complete: response.writableFinished && !truncated,
      });
    });
  });
  return recorded;
}

type Schema = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const DOCUMENT_ID = 'openapi.json';

/** A schema of the document whose `#/components/...` references point into the registered document. */
const anchored = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema), (key, value) =>
    key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOCUMENT_ID}${value}` : value,
  );

/** An SSE body's complete messages' `data` (a message cut off by the end of the recording is left out). */
function sseData(body: string): string[] {
  const blocks = body.split('\n\n').slice(0, -1);
  return blocks.flatMap((block) => {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''));
    return data.length === 0 ? [] : [data.join('\n')];
  });
}

/**
 * Checks recorded responses against the OpenAPI document the app serves: for the documented
 * operation of its path and method, the status must be documented, the media type must be one of
 * that status's, and the body must validate against its schema. A `text/event-stream` body's
 * messages must each be an item of the JSON page the same operation answers (`events[]`).
 * Requests to paths or methods the document does not describe (the docs' own files, unknown
 * routes, CORS preflights) are not checked here: test/docs/openapi.e2e-spec.ts checks that every
 * served route is documented.
 */
export class ContractChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: false });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: { pattern: RegExp; literal: number; path: string }[];

  private readonly document: Document;

  constructor(document: OpenAPIObject) {
    this.document = document as unknown as Document;
    this.ajv.addFormat('date-time', { validate: (value: string) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value) });
    this.ajv.addFormat('uri', { validate: (value: string) => URL.canParse(value) });
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: anchored(this.document.components) as object });
    this.routes = Object.keys(this.document.paths).map((path) => {
      const parts = path.split(/\{[^}]+\}/);
      const escaped = parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
      return { path, pattern: new RegExp(`^${escaped.join('[^/]+')}$`), literal: parts.join('').length };
    });
  }

  /** The problems of each response, one line each; empty when every response keeps the contract. */
  problems(responses: RecordedResponse[]): string[] {
    return responses.flatMap((response) => {
      const problem = this.check(response);
      return problem ? [`${response.method} ${response.url} → ${response.status} ${response.contentType ?? '(no content-type)'}: ${problem}`] : [];
    });
  }

  private check(response: RecordedResponse): string | null {
    const path = this.pathOf(response.url);
    const operation = path && this.document.paths[path][response.method.toLowerCase()];
    if (!path || !operation) return null;
    const documented = operation.responses[String(response.status)];
    if (!documented) return `status ${response.status} is not documented for ${response.method} ${path} (${Object.keys(operation.responses).join(', ')})`;
    const mediaType = response.contentType?.split(';')[0].trim().toLowerCase();
    const contents = documented.content ?? {};
    if (mediaType === undefined) {
      return Object.keys(contents).length === 0 || response.body === '' ? null : 'a body without a content-type';
    }
    const content = contents[mediaType];
    if (!content) return `content-type ${mediaType} is not documented (${Object.keys(contents).join(', ') || 'no body'})`;
    if (response.method === 'HEAD' || !response.complete || !content.schema) return null;
    if (mediaType === 'text/event-stream') return this.checkStream(path, response, operation);
    if (mediaType !== 'application/json') return null;
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      return 'the body is not JSON';
    }
    return this.validate(`${path} ${response.method} ${response.status} ${mediaType}`, content.schema, body);
  }

  /** Each message's data is one item of the page the same operation answers as JSON. */
  private checkStream(path: string, response: RecordedResponse, operation: Operation): string | null {
    const page = operation.responses[String(response.status)]?.content?.['application/json']?.schema;
    if (!page || typeof page.$ref !== 'string') return null;
    const items = { $ref: `${page.$ref}/properties/events/items` };
    for (const data of sseData(response.body)) {
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch {
        return `an SSE message's data is not JSON: ${data.slice(0, 200)}`;
      }
      const problem = this.validate(`${path} stream item`, items, event);
      if (problem) return `an SSE message: ${problem}`;
    }
    return null;
  }

  private validate(key: string, schema: Schema, value: unknown): string | null {
    let validator = this.validators.get(key);
    if (!validator) this.validators.set(key, (validator = this.ajv.compile(anchored(schema) as object)));
    if (validator(value)) return null;
    return `${this.ajv.errorsText(validator.errors)} in ${JSON.stringify(value).slice(0, 300)}`;
  }

  /** The documented path of a request's URL; of several, the one with the most literal characters (`{id}:cancel` over `{id}`). */
  private pathOf(url: string): string | undefined {
    const pathname = url.split('?')[0];
    const matches = this.routes.filter((route) => route.pattern.test(pathname));
    return matches.sort((a, b) => b.literal - a.literal)[0]?.path;
  }
}
