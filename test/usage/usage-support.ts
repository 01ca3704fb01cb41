import { api, JsonResponse } from '../support/app-harness';

/** Two tenants with their keys, for suites that run with authentication on. */
export const ACME = { authorization: 'Bearer acme-usage-key-0123456789abcdef' };
export const GLOBEX = { authorization: 'Bearer globex-usage-key-0123456789abcdef' };
export const API_KEYS = 'acme:acme-usage-key-0123456789abcdef,globex:globex-usage-key-0123456789abcdef';
export type Who = typeof ACME;

const ENDED = ['completed', 'failed', 'cancelled'];

/** A tenant's view of the API: every call with its key. */
export function tenantClient(baseUrl: () => string, who: Who) {
  const call = (method: string, path: string, body?: unknown): Promise<JsonResponse> => api(baseUrl(), method, path, body, who);
  const conversation = async (): Promise<string> => (await call('POST', '/v1/conversations', {})).body.id;
  const start = async (conversationId: string, script: Record<string, unknown>[], extra: Record<string, unknown> = {}): Promise<JsonResponse> =>
    call('POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'go' }, config: { script }, ...extra });
  const waitFor = async (id: string, done: (e: any) => boolean = (e) => ENDED.includes(e.status)): Promise<any> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const execution = (await call('GET', `/v1/executions/${id}`)).body;
      if (done(execution)) return execution;
      if (Date.now() > deadline) throw new Error(`execution ${id} is still ${execution.status}`);
      await new Promise((r) => setTimeout(r, 15));
    }
  };
  /** Starts a script and waits for its end. */
  const run = async (conversationId: string, script: Record<string, unknown>[], extra: Record<string, unknown> = {}): Promise<any> => {
    const res = await start(conversationId, script, extra);
    if (res.status !== 201) throw new Error(`not started: ${res.status} ${res.text}`);
    return waitFor(res.body.id);
  };
  const events = async (id: string): Promise<any[]> => (await call('GET', `/v1/executions/${id}/events`)).body.events;
  const usage = (query = ''): Promise<JsonResponse> => call('GET', `/v1/usage${query}`);
  return { call, conversation, start, waitFor, run, events, usage };
}

export const usageStep = (inputTokens: number, outputTokens: number) => ({ type: 'usage', inputTokens, outputTokens });

/** The sum of a counter's samples whose labels include all of `labels`, from /metrics text. */
export function counter(metrics: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of metrics.split('\n')) {
    const match = new RegExp(`^${name}(\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (!match) continue;
    const text = match[1] ?? '';
    if (Object.entries(labels).every(([k, v]) => text.includes(`${k}="${v}"`))) sum += Number(match[2]);
  }
  return sum;
}

/** The calendar month in UTC holding `now`, as GET /v1/usage defaults to it. */
export function monthAround(now: Date): { from: string; to: string } {
  return {
    from: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    to: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  };
}
