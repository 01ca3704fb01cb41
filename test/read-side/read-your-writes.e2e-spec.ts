import { api, createConversation, startExecution, useApp } from '../support/app-harness';
import { listActions, respond, waitForAction } from '../support/execution-helpers';

/**
 * Every read after a write this instance acknowledged shows the write, even
 * while many other writes land at once (the projector is live; queries wait for it, never pull).
 */
describe('read-your-writes under concurrent writes', () => {
  const app = useApp();

  it('40 concurrent writers each see their own write in the conversation, the search and by id, at once', async () => {
    const conversations = await Promise.all(Array.from({ length: 4 }, () => createConversation(app.baseUrl)));
    const problems: string[] = [];
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const conversationId = conversations[i % 4];
        const started = await startExecution(app.baseUrl, {
          conversationId,
          config: {
            script: [
              { type: 'delay', ms: 50 },
              { type: 'text', text: `w${i}` },
            ],
          },
        });
        const id = started.body.id;
        const [byId, conversation, search] = await Promise.all([
          api(app.baseUrl, 'GET', `/v1/executions/${id}`),
          api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`),
          api(app.baseUrl, 'GET', `/v1/executions?conversationId=${conversationId}&limit=100`),
        ]);
        if (byId.status !== 200) problems.push(`${id}: GET ${byId.status}`);
        if (!conversation.body.executions.some((e: any) => e.id === id)) problems.push(`${id} missing from its conversation`);
        if (!search.body.executions.some((e: any) => e.id === id)) problems.push(`${id} missing from search`);
      }),
    );
    expect(problems).toEqual([]);
  });

  it('an answer and a cancel show at once in the actions list and the resource', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const script = [
      { type: 'action', kind: 'approval', prompt: 'a?' },
      { type: 'action', kind: 'approval', prompt: 'b?' },
    ];
    const id = (await startExecution(app.baseUrl, { conversationId, config: { script } })).body.id;
    const waiting = await waitForAction(app.baseUrl, id);
    expect((await respond(app.baseUrl, id, waiting.pendingActionIds[0], { decision: 'approve' })).status).toBe(200);
    expect((await listActions(app.baseUrl, id))[0].status).toBe('resolved');
    const second = await waitForAction(app.baseUrl, id);
    expect((await api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`, {})).status).toBe(200);
    const [actions, execution] = await Promise.all([listActions(app.baseUrl, id), api(app.baseUrl, 'GET', `/v1/executions/${id}`)]);
    expect(actions.find((a) => a.id === second.pendingActionIds[0]).status).toBe('cancelled');
    expect(execution.body.status).toBe('cancelled');
    expect(execution.body.pendingActionIds).toEqual([]);
  });
});
