import { api, createConversation, waitForExecution } from '../support/app-harness';
import { cancel, listActions, respond, startScript, waitForAction } from '../support/execution-helpers';

/**
 * Something of everything the projections hold, every execution ended (so a restart appends
 * nothing): deltas, an approved action, a pending action cut off by a cancel, artifacts, a failure.
 * Answers the ids the API snapshot reads.
 */
export async function populate(baseUrl: string): Promise<{ conversations: string[]; executions: string[] }> {
  const conversations = [await createConversation(baseUrl, { title: 'rebuild ✓', metadata: { team: 'a' } }), await createConversation(baseUrl)];
  const executions: string[] = [];
  const started = async (conversationId: string, script: Record<string, unknown>[]) => {
    const execution = await startScript(baseUrl, conversationId, script);
    executions.push(execution.id);
    return execution.id as string;
  };
  const texts = Array.from({ length: 30 }, (_, i) => ({ type: 'text', text: `t${i} ` }));
  await started(conversations[0], [...texts, { type: 'artifact', name: 'out.txt', mediaType: 'text/plain', metadata: { k: 1 } }]);
  const approved = await started(conversations[0], [
    { type: 'action', kind: 'approval', prompt: 'ship it?' },
    { type: 'text', text: 'shipped' },
  ]);
  const [approval] = (await waitForAction(baseUrl, approved)).pendingActionIds;
  await respond(baseUrl, approved, approval, { decision: 'approve', comment: 'ok' });
  const cancelled = await started(conversations[1], [{ type: 'action', kind: 'input', prompt: 'branch?' }]);
  await waitForAction(baseUrl, cancelled);
  await cancel(baseUrl, cancelled, { reason: 'changed my mind' });
  await started(conversations[1], [
    { type: 'text', text: 'x' },
    { type: 'fail', message: 'boom' },
  ]);
  await started(conversations[1], [
    { type: 'artifact', name: 'a.json', mediaType: 'application/json' },
    { type: 'artifact', name: 'b.txt', mediaType: 'text/plain' },
  ]);
  for (const id of executions) await waitForExecution(baseUrl, id);
  expect((await listActions(baseUrl, cancelled))[0].status).toBe('cancelled');
  return { conversations, executions };
}

/** Everything the read models answer through the API, as response texts. */
export async function snapshot(baseUrl: string, ids: { conversations: string[]; executions: string[] }): Promise<string[]> {
  const paths = [
    ...ids.conversations.map((id) => `/v1/conversations/${id}`),
    ...ids.executions.flatMap((id) => [`/v1/executions/${id}`, `/v1/executions/${id}/actions`, `/v1/executions/${id}/artifacts`]),
    '/v1/executions?limit=100',
    `/v1/executions?conversationId=${ids.conversations[1]}&status=cancelled`,
  ];
  const texts: string[] = [];
  for (const path of paths) {
    const res = await api(baseUrl, 'GET', path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    texts.push(`${path} ${res.text}`);
  }
  return texts;
}
