import fc from 'fast-check';
import { Agent } from 'node:http';
import { ERROR_STATUS } from '../../src/http/api-error';
import { EVENT_STORE, EventStore } from '../../src/event-store/event-store';
import { ServedRoute, servedRoutes } from '../docs/served-routes';
import { api, AppContext, useApp } from '../support/app-harness';
import * as gen from './arbitraries';
import { RawResponse, send } from './raw-client';

/**
 * Every error in the envelope (docs/api.md#errors): random JSON bodies, query strings, path segments and
 * headers thrown at every route the app serves (read back from Fastify, as the OpenAPI test
 * does), with auth, the rate limit and CORS on. Every answer must be below 500; every error must
 * be exactly the error envelope of docs/api.md#errors with a code that goes with its status; and a request
 * that got an error must have appended nothing (the store's head position is unchanged).
 *
 * FUZZ_RUNS scales the run count (default 400, and 160 with auth off); FUZZ_SEED replays a failure
 * fast-check reported; FUZZ_DEBUG=1 stops at the first failure instead of shrinking it.
 */
const KEY = 'fuzz-key-0123456789abcd';
const AUTH = { authorization: `Bearer ${KEY}` };
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** The codes each error status may carry (415 and Node's 431 are VALIDATION_ERROR with their own status). */
const CODES_BY_STATUS = new Map<number, string[]>([
  [415, ['VALIDATION_ERROR']],
  [431, ['VALIDATION_ERROR']],
]);
for (const [code, status] of Object.entries(ERROR_STATUS)) CODES_BY_STATUS.set(status, [...(CODES_BY_STATUS.get(status) ?? []), code]);

/** Swagger UI's static files also answer a failed precondition or an unsatisfiable Range. */
const STATIC_FILE_STATUSES = new Map([
  [412, ['VALIDATION_ERROR']],
  [416, ['VALIDATION_ERROR']],
]);

/** Why `res` is not exactly the binding's error envelope, or null. */
function envelopeProblem(res: RawResponse, path: string): string | null {
  const codes = CODES_BY_STATUS.get(res.status) ?? (path.startsWith('/docs/') ? STATIC_FILE_STATUSES.get(res.status) : undefined);
  if (!codes) return `status ${res.status} is no status of the binding`;
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) return `content-type ${String(res.headers['content-type'])}`;
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return 'body is not JSON';
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).join() !== 'error') return 'top level is not exactly {error}';
  const error = body.error;
  if (error === null || typeof error !== 'object' || Array.isArray(error)) return 'error is not an object';
  // The OpenAI binding's routes answer OpenAI's shape, with the binding's code as `code` (docs/responses-api.md#errors).
  // Node's own refusals of a request it cannot parse are written before any URL is known: those stay in the binding's.
  const unparsed = ['the request is not valid HTTP', 'the request headers are too large', 'the request did not arrive in time'].includes(error.message);
  if (/^\/v1\/responses(?:[/?]|$)/.test(path) && !unparsed) return openAiShapeProblem(error, codes, res.text);
  const keys = Object.keys(error);
  if (keys.slice(0, 2).join() !== 'code,message' || !keys.slice(2).every((k) => k === 'details') || keys.length > 3) return `error keys ${keys.join()}`;
  if (!codes.includes(error.code)) return `code ${error.code} with status ${res.status}`;
  if (typeof error.message !== 'string' || error.message === '') return 'empty message';
  if ('details' in error && (error.details === null || typeof error.details !== 'object' || Array.isArray(error.details))) return 'details is not an object';
  if (/\n\s+at |node_modules|\/[\w/.-]+\.[jt]s:\d+:\d+/.test(res.text)) return 'looks like a stack trace';
  return null;
}

/** Why an error under /v1/responses is not exactly `{ message, type, code, param, details? }`, or null. */
function openAiShapeProblem(error: Record<string, unknown>, codes: string[], text: string): string | null {
  const keys = Object.keys(error);
  if (keys.slice(0, 4).join() !== 'message,type,code,param' || !keys.slice(4).every((k) => k === 'details') || keys.length > 5)
    return `error keys ${keys.join()}`;
  if (!codes.includes(error.code as string)) return `code ${String(error.code)}`;
  if (typeof error.message !== 'string' || error.message === '') return 'empty message';
  if (typeof error.type !== 'string' || (error.param !== null && typeof error.param !== 'string')) return 'type or param';
  if (/\n\s+at |node_modules|\/[\w/.-]+\.[jt]s:\d+:\d+/.test(text)) return 'looks like a stack trace';
  return null;
}

/** `:name(regex)` and `:name` take the next segment, `*` the rest of the path; `::` is a literal colon. */
function fillPath(url: string, segments: string[]): string {
  let next = 0;
  const take = () => segments[next++ % segments.length];
  return url
    .replace(/::/g, '\u0000')
    .replace(/:\w+(\([^)]*\))?/g, take)
    .replace(/\*/g, () => `${take()}/${take()}`)
    .replace(/\u0000/g, ':')
    .replace(/^(?!\/)/, '/');
}

interface Fixtures {
  [marker: string]: string;
}

/** An existing conversation, a finished run, and runs waiting on an approval and on an input. */
async function createFixtures(baseUrl: string): Promise<Fixtures> {
  const as = (method: string, path: string, body?: unknown) => api(baseUrl, method, path, body, AUTH);
  const conversation = (await as('POST', '/v1/conversations', { title: 'fuzz' })).body.id;
  const start = async (script?: unknown[]) => {
    const res = await as('POST', '/v1/executions', {
      conversationId: conversation,
      provider: 'scripted',
      input: { text: 'hello fuzz' },
      config: script ? { script } : {},
    });
    if (res.status !== 201) throw new Error(`fixture not started: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  const waitingOn = async (id: string) => {
    for (let i = 0; i < 500; i++) {
      const execution = (await as('GET', `/v1/executions/${id}`)).body;
      if (execution.pendingActionIds?.length) return execution.pendingActionIds[0] as string;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`execution ${id} never waited on an action`);
  };
  const execution = await start();
  const waiting = await start([
    { type: 'text', text: 'a' },
    { type: 'action', kind: 'approval', prompt: 'ok?' },
  ]);
  const input = await start([
    { type: 'action', kind: 'input', prompt: 'n?', inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } },
  ]);
  return {
    $conversation: conversation,
    $execution: execution,
    $waiting: waiting,
    $approval: await waitingOn(waiting),
    $input: input,
    $inputAction: await waitingOn(input),
    $key: KEY,
  };
}

/** Markers replaced by the fixtures' ids, longest first (`$inputAction` before `$input`). */
const resolver = (fixtures: Fixtures) => {
  const markers = Object.keys(fixtures).sort((a, b) => b.length - a.length);
  return (text: string) => markers.reduce((out, marker) => out.split(marker).join(fixtures[marker]), text);
};

/** Waits until nothing more is appended (runs started by a successful request end quickly). */
async function settle(store: EventStore): Promise<void> {
  let last = await store.headPosition();
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 25));
    const now = await store.headPosition();
    if (now === last) return;
    last = now;
  }
}

function fuzzRoutes(app: AppContext, runs: number): void {
  let routes: ServedRoute[];
  let fixtures: Fixtures;
  let store: EventStore;
  const agent = new Agent({ keepAlive: false });
  const counts = new Map<number, number>();

  beforeAll(async () => {
    routes = servedRoutes(app.app.getHttpAdapter().getInstance());
    fixtures = await createFixtures(app.baseUrl);
    store = app.app.get<EventStore>(EVENT_STORE);
    await settle(store);
  });
  afterAll(() => {
    agent.destroy();
    process.stderr.write(`route fuzz: ${runs} requests over ${routes.length} routes, statuses ${JSON.stringify(Object.fromEntries([...counts].sort()))}\n`);
  });

  it('answers every request below 500, every error in the envelope, and appends nothing on an error', async () => {
    // The route list was really read (a format change must fail here, not pass vacuously).
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['POST /v1/executions', 'GET /v1/events', 'GET /health/ready', 'GET /metrics', 'GET /docs/json']),
    );
    const resolve = resolver(fixtures);
    const port = Number(new URL(app.baseUrl).port);
    // Writes are where an error could append: POST routes most, /v1 reads next, the rest a little.
    const weight = (r: ServedRoute) => (r.method === 'POST' ? 12 : r.method === 'GET' && r.url.startsWith('/v1/') ? 3 : 1);
    const route = fc.oneof(...routes.map((r) => ({ weight: weight(r), arbitrary: fc.constant(r) })));
    const request = route.chain((route) =>
      fc.record({
        route: fc.constant(route),
        method: fc.option(fc.constantFrom(...gen.METHODS), { freq: 8 }),
        segments: fc.array(gen.pathSegment, { minLength: 3, maxLength: 3 }),
        query: gen.queryString,
        headers: gen.headers,
        body: fc.option(gen.bodyFor(route.url), { freq: 6 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const method = r.method ?? r.route.method;
        const query = r.query === '' ? '' : `?${resolve(r.query)}`;
        const path = resolve(fillPath(r.route.url, r.segments)) + query;
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(r.headers)) {
          if (name === 'extra') headers[(value as [string, string])[0]] = (value as [string, string])[1];
          else headers[name] = resolve(value as string);
        }
        const body = r.body === null || method === 'GET' || method === 'HEAD' ? undefined : resolve(r.body);
        const before = await store.headPosition();
        const res = await send(port, agent, { method, path, headers, body }, 3000);
        counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
        const seen = `${method} ${path} -> ${res.status} ${res.text.slice(0, 300)}`;
        if (res.status >= 500) throw new Error(`5xx: ${seen}`);
        if (res.status < 400) {
          await settle(store);
          return;
        }
        const problem = method === 'HEAD' ? null : envelopeProblem(res, path);
        if (problem) throw new Error(`not the envelope (${problem}): ${seen}`);
        const after = await store.headPosition();
        if (after !== before) {
          const appended = (await store.readAll({ after: before })).map((e) => `${e.streamId}:${e.type}`);
          throw new Error(`an error appended ${appended.join(', ')}: ${seen}`);
        }
      }),
      { numRuns: runs, seed: SEED, endOnFailure: !!process.env.FUZZ_DEBUG },
    );
    // A passing run takes seconds; shrinking a failure takes longer.
  }, 180_000);
}

describe('route fuzz, auth + rate limit + CORS on', () => {
  const app = useApp({
    env: { API_KEYS: `fuzz:${KEY}`, AUTH_FAILURES_PER_MINUTE: '0', RATE_LIMIT_PER_MINUTE: '1000000', CORS_ORIGINS: 'https://app.example.com' },
  });
  fuzzRoutes(app, RUNS);
});

describe('route fuzz, auth off', () => {
  const app = useApp();
  fuzzRoutes(app, Math.ceil(RUNS * 0.4));
});

// The generated bodies put keys such as `__proto__` on objects: none may reach a prototype, in
// jest's sandbox or outside it (where fetch and structuredClone make their objects).
afterAll(() => {
  for (const prototype of [Object.prototype, Object.getPrototypeOf(structuredClone({})) as object])
    expect(Object.getOwnPropertyNames(prototype).filter((name) => Object.getOwnPropertyDescriptor(prototype, name)!.enumerable)).toEqual([]);
});
