import { api, JsonResponse, startExecution, waitForExecution } from './app-harness';
import { sdk } from './sdk';

/** Shared by the actions, artifacts, cancellation and idempotency suites: scripted executions, replays and exact error envelopes. */

export type Step = Record<string, unknown>;

/** Starts a scripted execution and insists on the 201 of docs/api.md#executions. */
export async function startScript(baseUrl: string, conversationId: string, script: Step[], config: Record<string, unknown> = {}): Promise<any> {
  const res = await startExecution(baseUrl, { conversationId, config: { script, ...config } });
  if (res.status !== 201) throw new Error(`execution not started: ${res.status} ${res.text}`);
  return res.body;
}

/** Waits for `status`, or for an end that rules it out (the caller's assertion then says which). */
export const waitForStatus = (baseUrl: string, id: string, status: string) => waitForExecution(baseUrl, id, (e) => e.status === status || isEnded(e.status));

const isEnded = (status: string) => ['completed', 'failed', 'cancelled'].includes(status);

/** Waits until the execution waits on an action (never on a terminal state that skipped it). */
export async function waitForAction(baseUrl: string, id: string, pendingCount = 1): Promise<any> {
  const execution = await waitForExecution(
    baseUrl,
    id,
    (e) => isEnded(e.status) || (e.status === 'requires_action' && e.pendingActionIds.length === pendingCount),
  );
  if (execution.status !== 'requires_action') throw new Error(`execution ${id} ended as ${execution.status}`);
  return execution;
}

/** The whole JSON replay of an execution's events (docs/api.md#events). */
export async function replay(baseUrl: string, id: string): Promise<any[]> {
  return (await sdk(baseUrl).eventPage(id)).events;
}

export const typesOf = (events: any[]) => events.map((e) => e.type);
export const countOf = (events: any[], type: string) => events.filter((e) => e.type === type).length;

/** POST /v1/executions with exactly this body (no defaults filled in). */
export const postExecution = (baseUrl: string, body: unknown) => api(baseUrl, 'POST', '/v1/executions', body);

/** The executions a conversation lists. */
export const executionsOf = async (baseUrl: string, conversationId: string): Promise<any[]> => (await sdk(baseUrl).conversation(conversationId)).executions;

export const respond = (baseUrl: string, id: string, actionId: string, body: unknown) =>
  api(baseUrl, 'POST', `/v1/executions/${id}/actions/${actionId}:respond`, body);

export const cancel = (baseUrl: string, id: string, body: unknown = {}) => api(baseUrl, 'POST', `/v1/executions/${id}:cancel`, body);

export const listActions = async (baseUrl: string, id: string): Promise<any[]> => sdk(baseUrl).actions(id);

/** The binding's error envelope, exactly: `{error: {code, message[, details]}}` and nothing else. */
export function expectError(res: JsonResponse, status: number, code: string, details?: unknown): void {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(Object.keys(res.body)).toEqual(['error']);
  const expected: Record<string, unknown> = { code, message: expect.any(String) };
  if (details !== undefined) expected.details = details;
  else if ('details' in res.body.error) expected.details = expect.any(Object);
  expect(res.body.error).toEqual(expected);
  expect(res.body.error.message.length).toBeGreaterThan(0);
  expect(res.text).not.toMatch(/\n\s+at /);
}

export const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

/** Waits for the execution's terminal state. */
export const waitForExecutionEnd = (baseUrl: string, id: string) => waitForExecution(baseUrl, id);
