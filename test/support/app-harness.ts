import 'reflect-metadata';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app';
import { Config, loadConfig } from '../../src/config/config';
import { createApiDocument } from '../../src/openapi/api-docs';
import { ContractChecker, recordResponses } from './contract';
import { createDatabase } from './postgres-cluster';
import { sdk } from './sdk';

export interface RunningApp {
  app: NestFastifyApplication;
  baseUrl: string;
  sqlitePath: string;
  close(): Promise<void>;
}

/** A fresh SQLite file in its own temp folder. */
export const tempSqlitePath = (): string => join(mkdtempSync(join(tmpdir(), 'runledger-test-')), 'runledger.db');

/**
 * With RUNLEDGER_E2E_STORE=postgres (the second pass of `npm test`), every app of the e2e suites
 * runs on PostgreSQL instead: one fresh database per SQLite path a test asks for, so a test that
 * restarts "on the same file" restarts on the same database.
 */
export const onPostgres = process.env.RUNLEDGER_E2E_STORE === 'postgres';
const databases = new Map<string, string>();

/** The store of `startApp({ sqlitePath })` as environment variables, also for a compiled server (`node dist/main.js`). */
export async function storeEnv(sqlitePath: string): Promise<Record<string, string>> {
  if (!onPostgres) return {};
  const adminUrl = process.env.RUNLEDGER_PG_URL;
  if (!adminUrl) throw new Error(`RUNLEDGER_E2E_STORE=postgres needs PostgreSQL: ${process.env.RUNLEDGER_PG_SKIP_REASON}`);
  if (!databases.has(sqlitePath)) databases.set(sqlitePath, await createDatabase(adminUrl, 'e2e'));
  return { EVENT_STORE: 'postgres', DATABASE_URL: databases.get(sqlitePath)!, READ_MODEL_PATH: sqlitePath.replace(/\.db$/, '.read-models.db') };
}

/** Tests that make SQLite itself fail (or read its file) run only in the SQLite pass. */
export const describeOnSqlite: jest.Describe = onPostgres ? describe.skip : describe;

/** The real application on an ephemeral loopback port over a real SQLite file (or PostgreSQL, see above). */
export async function startApp(overrides: Partial<Config> & { env?: Record<string, string> } = {}): Promise<RunningApp> {
  const { env, ...rest } = overrides;
  const sqlitePath = rest.sqlitePath ?? tempSqlitePath();
  // Both files in the test's own folder, as the defaults would place them next to SQLITE_PATH.
  const config: Config = {
    ...loadConfig({ LOG_LEVEL: 'error', SQLITE_PATH: sqlitePath, ...(await storeEnv(sqlitePath)), ...env }),
    port: 0,
    ...rest,
  };
  const app = await createApp(config);
  const responses = recordResponses(app.getHttpServer());
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return {
    app,
    baseUrl: `http://127.0.0.1:${address.port}`,
    sqlitePath: config.sqlitePath,
    close: async () => {
      checker ??= new ContractChecker(createApiDocument(app));
      await app.close();
      const problems = checker.problems(responses.splice(0));
      if (problems.length > 0) throw new Error(`responses that break the OpenAPI document (docs/api.md#the-openapi-document):\n${problems.join('\n')}`);
    },
  };
}

/**
 * Every response an app of the suites answers is checked against the document it serves when
 * the app closes: the document is the API's one description of shapes, so it must hold for
 * every real answer. One document per test file: every app builds the same one.
 */
let checker: ContractChecker | undefined;

export interface AppOptions extends Partial<Config> {
  env?: Record<string, string>;
  /** Also create one conversation for the suite once the app is up (see `AppContext.conversationId`). */
  conversation?: boolean;
}

/** A running app as `startApp` answers it, plus the suite's conversation when asked for. */
export interface AppContext extends RunningApp {
  conversationId: string;
}

/**
 * Starts the app in `beforeAll` and closes it in `afterAll` of the calling block. The returned
 * object's fields are filled in by that `beforeAll`: read them inside hooks and tests only.
 */
export function useApp(options: AppOptions = {}): AppContext {
  const { conversation = false, ...overrides } = options;
  const ctx = {} as AppContext;
  beforeAll(async () => {
    Object.assign(ctx, await startApp(overrides));
    if (conversation) ctx.conversationId = await createConversation(ctx.baseUrl);
  });
  afterAll(() => ctx.close());
  return ctx;
}

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** fetch with a JSON body, answering the status, headers and parsed body. */
export async function api<T = any>(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, init);
  const text = await response.text();
  let parsed: any = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export async function createConversation(baseUrl: string, body: Record<string, unknown> = {}): Promise<string> {
  return (await sdk(baseUrl).createConversation(body)).id;
}

export async function startExecution(baseUrl: string, body: Record<string, unknown>): Promise<JsonResponse> {
  return api(baseUrl, 'POST', '/v1/executions', { provider: 'scripted', input: { text: 'hello brave new world' }, ...body });
}

/** Polls the execution until `done(execution)` or the timeout. */
export async function waitForExecution(
  baseUrl: string,
  id: string,
  done: (execution: any) => boolean = (e) => ['completed', 'failed', 'cancelled'].includes(e.status),
  timeoutMs = 10000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api(baseUrl, 'GET', `/v1/executions/${id}`);
    if (done(res.body)) return res.body;
    if (Date.now() > deadline) throw new Error(`execution ${id} still ${res.body?.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  retry?: string;
}

/** Reads an SSE response to its end (or until `stopAfter` says so), parsed into messages. */
export async function readSse(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
  stopAfter: (messages: SseMessage[]) => boolean = () => false,
): Promise<{ status: number; headers: Headers; messages: SseMessage[]; raw: string }> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  if (response.status !== 200 || !response.body) {
    return { status: response.status, headers: response.headers, messages: [], raw: await response.text() };
  }
  const decoder = new TextDecoder();
  let raw = '';
  let consumed = 0;
  const messages: SseMessage[] = [];
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = raw.indexOf('\n\n', consumed)) !== -1) {
        messages.push(parseBlock(raw.slice(consumed, end)));
        consumed = end + 2;
      }
      if (stopAfter(messages)) {
        controller.abort();
        break;
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error;
  }
  return { status: response.status, headers: response.headers, messages, raw };
}

function parseBlock(block: string): SseMessage {
  const message: SseMessage = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) message.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(':');
      const field = line.slice(0, colon) as keyof SseMessage;
      const value = line.slice(colon + 1).replace(/^ /, '');
      message[field] = message[field] === undefined ? value : `${message[field]}\n${value}`;
    }
  }
  return message;
}
