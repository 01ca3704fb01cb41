import { api, useApp } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { replay, startScript, waitForAction } from '../support/execution-helpers';

/**
 * Text that is not well-formed Unicode (a lone surrogate, sent as JSON's
 * `\ud800` escape) anywhere in a body is 400 VALIDATION_ERROR naming the field — it was stored in
 * the log as sent and read back from the read model as U+FFFD — and a body nested deeper than
 * MAX_JSON_DEPTH is 400 too, where 5,000 levels answered 500. Every route, nothing appended.
 * Bodies are sent as raw text: JSON.stringify would not keep an escape for a key or value a test
 * builds, and a deep value is cheaper to write out than to build.
 */
const LONE = '\\ud800';
const deepArray = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('JSON bodies: well-formed Unicode and MAX_JSON_DEPTH on every route', () => {
  const app = useApp({ conversation: true });
  const post = (path: string, text: string) => api(app.baseUrl, 'POST', path, text, { 'content-type': 'application/json' });
  const feedLength = async () => (await api(app.baseUrl, 'GET', '/v1/events')).body.events.length as number;

  /** An execution waiting on an input action, and one waiting on an approval, with their action ids. */
  async function pendingActions() {
    const input = await startScript(app.baseUrl, app.conversationId, [{ type: 'action', kind: 'input', prompt: 'Anything?' }]);
    const approval = await startScript(app.baseUrl, app.conversationId, [{ type: 'action', kind: 'approval', prompt: 'OK?' }]);
    const [inputAction] = (await waitForAction(app.baseUrl, input.id)).pendingActionIds;
    const [approvalAction] = (await waitForAction(app.baseUrl, approval.id)).pendingActionIds;
    return {
      input: { id: input.id as string, path: `/v1/executions/${input.id}/actions/${inputAction}:respond` },
      approval: { id: approval.id as string, path: `/v1/executions/${approval.id}/actions/${approvalAction}:respond` },
    };
  }

  const execution = (fields: string) => `{"conversationId":"${app.conversationId}","provider":"scripted","input":{"text":"hi"},${fields}}`.replace(',}', '}');

  it('a lone surrogate in any string or key is 400 VALIDATION_ERROR naming its field; nothing is appended', async () => {
    const actions = await pendingActions();
    const before = { feed: await feedLength(), input: await replay(app.baseUrl, actions.input.id), approval: await replay(app.baseUrl, actions.approval.id) };
    const cases: Array<[string, string, string]> = [
      ['/v1/conversations', `{"title":"a${LONE}b"}`, 'title'],
      ['/v1/conversations', `{"metadata":{"note":"x${LONE}"}}`, 'metadata.note'],
      ['/v1/conversations', `{"metadata":{"tags":["ok","\\udc00"]}}`, 'metadata.tags[1]'],
      ['/v1/conversations', `{"metadata":{"odd key":{"k${LONE}":1}}}`, 'metadata["odd key"]'],
      ['/v1/executions', execution('').replace('"hi"', `"h${LONE}i"`), 'input.text'],
      ['/v1/executions', execution(`"config":{"script":[{"type":"text","text":"${LONE}"}]}`), 'config.script[0].text'],
      ['/v1/executions', execution(`"metadata":{"m":"${LONE}"}`), 'metadata.m'],
      [actions.input.path, `{"value":{"answer":"${LONE}"}}`, 'value.answer'],
      [actions.input.path, `{"value":"\\udfff"}`, 'value'],
      [actions.approval.path, `{"decision":"approve","comment":"fine${LONE}"}`, 'comment'],
    ];
    for (const [path, text, field] of cases) {
      const res = await post(path, text);
      expectError(res, 400, 'VALIDATION_ERROR');
      expect({ path, text, error: res.body.error }).toEqual({
        path,
        text,
        error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/not well-formed Unicode/), details: { field: expect.stringContaining(field) } },
      });
    }
    // A key is named by the object that holds it.
    expect((await post('/v1/conversations', `{"metadata":{"${LONE}":1}}`)).body.error).toMatchObject({
      message: 'metadata has a key that is not well-formed Unicode (it holds a lone surrogate)',
      details: { field: 'metadata' },
    });
    expect(await feedLength()).toBe(before.feed);
    expect(await replay(app.baseUrl, actions.input.id)).toEqual(before.input);
    expect(await replay(app.baseUrl, actions.approval.id)).toEqual(before.approval);
  });

  it('well-formed text outside the BMP (a surrogate pair) is stored and read back the same from the log and the read model', async () => {
    const created = await post('/v1/conversations', '{"title":"ok \\ud83d\\ude00","metadata":{"\\ud83d\\ude00":"\\ud83d\\ude00"}}');
    expect(created.status).toBe(201);
    const read = await api(app.baseUrl, 'GET', `/v1/conversations/${created.body.id}`);
    expect(read.body).toMatchObject({ title: 'ok 😀', metadata: { '😀': '😀' } });
    const logged = (await api(app.baseUrl, 'GET', '/v1/events')).body.events.filter((e: any) => e.conversationId === created.body.id);
    expect(logged).toEqual([expect.objectContaining({ data: expect.objectContaining({ title: read.body.title, metadata: read.body.metadata }) })]);
  });

  it('5,000 levels of arrays or objects in any body are 400 VALIDATION_ERROR, not 500; nothing is appended', async () => {
    const actions = await pendingActions();
    const before = { feed: await feedLength(), input: await replay(app.baseUrl, actions.input.id), approval: await replay(app.baseUrl, actions.approval.id) };
    for (const deep of [deepArray(5000), deepObject(5000)]) {
      const bodies: Array<[string, string]> = [
        ['/v1/conversations', `{"metadata":{"x":${deep}}}`],
        ['/v1/executions', execution(`"config":{"x":${deep}}`)],
        ['/v1/executions', execution(`"metadata":${deep.startsWith('{') ? deep : `{"x":${deep}}`}`)],
        [actions.input.path, `{"value":${deep}}`],
        [actions.approval.path, `{"decision":"approve","comment":${deep}}`],
        [`/v1/executions/${actions.input.id}:cancel`, `{"reason":${deep}}`],
      ];
      for (const [path, text] of bodies) {
        const res = await post(path, text);
        expectError(res, 400, 'VALIDATION_ERROR');
        expect({ path, message: res.body.error.message }).toEqual({
          path,
          message: 'request body nests arrays and objects deeper than 64 levels (MAX_JSON_DEPTH)',
        });
      }
    }
    expect(await feedLength()).toBe(before.feed);
    expect(await replay(app.baseUrl, actions.input.id)).toEqual(before.input);
    expect(await replay(app.baseUrl, actions.approval.id)).toEqual(before.approval);
  });

  it('the bound is MAX_JSON_DEPTH exactly: 64 levels (the body is the first) are accepted, 65 are not; brackets inside strings do not count', async () => {
    // {"metadata":{"x": <62 levels>}}: 1 + 1 + 62 = 64.
    const atBound = await post('/v1/conversations', `{"metadata":{"x":${deepArray(62)}},"title":"${'['.repeat(100)}"}`);
    expect(atBound.status).toBe(201);
    const read = await api(app.baseUrl, 'GET', `/v1/conversations/${atBound.body.id}`);
    expect(JSON.stringify(read.body.metadata.x)).toBe(deepArray(62));
    expectError(await post('/v1/conversations', `{"metadata":{"x":${deepArray(63)}}}`), 400, 'VALIDATION_ERROR');
  });
});
