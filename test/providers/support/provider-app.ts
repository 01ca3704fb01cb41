import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { api, createConversation, RunningApp, startApp, waitForExecution } from '../../support/app-harness';
import { FakeUpstream } from './fake-upstream';

/** The key every test instance reads from TEST_API_KEY; it must never show up anywhere. */
export const SECRET = 'sk-test-SECRET-7f3a9c1e5b2d4f60';

export interface ProviderAppContext {
  upstream: FakeUpstream;
  app: RunningApp;
  baseUrl: string;
  conversationId: string;
  /** Everything the process wrote to stdout, stderr and the console while the suite ran. */
  logs(): string;
}

/** Writes a providers file (YAML) in a fresh temp folder and answers its path. */
export function writeProvidersFile(providers: unknown[], name = 'providers.yaml'): string {
  const file = join(mkdtempSync(join(tmpdir(), 'runledger-providers-')), name);
  writeFileSync(file, name.endsWith('.json') ? JSON.stringify({ providers }) : stringify({ providers }));
  return file;
}

/**
 * A fake upstream on loopback, then the app configured (PROVIDERS_CONFIG) with instances that
 * point at it, logging at debug level into a buffer that the suite can search for the key.
 */
export function useProviderApp(instances: (origin: string) => unknown[]): ProviderAppContext {
  const ctx = {} as ProviderAppContext;
  let captured = '';
  const restore: (() => void)[] = [];
  beforeAll(async () => {
    for (const stream of [process.stdout, process.stderr]) {
      // eslint-disable-next-line @typescript-eslint/unbound-method -- put back on the same stream by restore
      const write = stream.write;
      stream.write = ((chunk: unknown) => ((captured += String(chunk)), true)) as typeof stream.write;
      restore.push(() => (stream.write = write));
    }
    for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
      const spy = jest.spyOn(console, method).mockImplementation((...args: unknown[]) => void (captured += `${args.map(String).join(' ')}\n`));
      restore.push(() => spy.mockRestore());
    }
    ctx.upstream = await FakeUpstream.start();
    const file = writeProvidersFile(instances(ctx.upstream.origin));
    ctx.app = await startApp({ env: { PROVIDERS_CONFIG: file, TEST_API_KEY: SECRET, LOG_LEVEL: 'debug' } });
    ctx.baseUrl = ctx.app.baseUrl;
    ctx.conversationId = await createConversation(ctx.baseUrl);
  });
  afterEach(() => ctx.upstream.reset());
  afterAll(async () => {
    await ctx.app?.close();
    await ctx.upstream?.close();
    for (const undo of restore.reverse()) undo();
  });
  ctx.logs = () => captured;
  return ctx;
}

/**
 * Starts an execution on `provider` and insists on the 201; in a conversation of its own unless
 * one is given, so that no test hears another's history.
 */
export async function start(
  ctx: ProviderAppContext,
  provider: string,
  text: string,
  config: Record<string, unknown> = {},
  conversationId?: string,
): Promise<string> {
  conversationId ??= await createConversation(ctx.baseUrl);
  const res = await api(ctx.baseUrl, 'POST', '/v1/executions', { conversationId, provider, input: { text }, config });
  if (res.status !== 201) throw new Error(`execution not started: ${res.status} ${res.text}`);
  return res.body.id;
}

export const ended = (ctx: ProviderAppContext, id: string) => waitForExecution(ctx.baseUrl, id);

/** Waits until the execution has appended an event of `type` (e.g. the first delta). */
export async function waitForEvent(ctx: ProviderAppContext, id: string, type: string, timeoutMs = 5000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const events = (await api(ctx.baseUrl, 'GET', `/v1/executions/${id}/events`)).body.events as any[];
    if (events.some((e) => e.type === type)) return events;
    if (Date.now() > deadline) throw new Error(`no ${type} in ${events.map((e) => e.type).join(', ')}`);
    await new Promise((r) => setTimeout(r, 15));
  }
}

/** Resolves true when `promise` settles within `ms`. */
export const within = (promise: Promise<unknown>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
