import { api, createConversation, startExecution, useApp } from '../support/app-harness';
import { countOf, expectError, ISO, replay, startScript, typesOf, waitForExecutionEnd } from '../support/execution-helpers';

const artifactsOf = async (baseUrl: string, id: string) => {
  const res = await api(baseUrl, 'GET', `/v1/executions/${id}/artifacts`);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(['artifacts']);
  return res.body.artifacts as any[];
};

describe('artifacts from the scripted provider (docs/api.md#artifacts)', () => {
  const app = useApp({ conversation: true });

  it('artifact steps create validated descriptors, listed in creation order and counted', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'artifact', name: 'report.pdf', mediaType: 'application/pdf', uri: 'https://files.example/report.pdf', metadata: { pages: 3 } },
      { type: 'text', text: 'made two' },
      { type: 'artifact', name: 'notes.txt', mediaType: 'text/plain; charset=utf-8' },
      { type: 'artifact', name: 'data.json', mediaType: 'application/vnd.api+json', uri: null, metadata: null },
    ]);
    const done = await waitForExecutionEnd(app.baseUrl, started.id);
    expect(done).toMatchObject({ status: 'completed', artifactCount: 3, outputText: 'made two' });

    const events = await replay(app.baseUrl, started.id);
    expect(typesOf(events)).toEqual([
      'run.queued',
      'run.started',
      'artifact.created',
      'output.text.delta',
      'artifact.created',
      'artifact.created',
      'output.text.done',
      'run.completed',
    ]);
    const created = events.filter((e) => e.type === 'artifact.created').map((e) => e.data.artifact);
    expect(created).toEqual([
      {
        id: expect.any(String),
        executionId: started.id,
        name: 'report.pdf',
        mediaType: 'application/pdf',
        createdAt: ISO,
        uri: 'https://files.example/report.pdf',
        metadata: { pages: 3 },
      },
      { id: expect.any(String), executionId: started.id, name: 'notes.txt', mediaType: 'text/plain; charset=utf-8', createdAt: ISO, uri: null, metadata: {} },
      { id: expect.any(String), executionId: started.id, name: 'data.json', mediaType: 'application/vnd.api+json', createdAt: ISO, uri: null, metadata: {} },
    ]);
    expect(Object.keys(created[0])).toEqual(['id', 'executionId', 'name', 'mediaType', 'createdAt', 'uri', 'metadata']);
    expect(new Set(created.map((a) => a.id)).size).toBe(3);
    // The list is the same descriptors, in creation order.
    expect(await artifactsOf(app.baseUrl, started.id)).toEqual(created);
  });

  it('an execution without artifact steps lists none', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'text', text: 'plain' }]);
    expect(await waitForExecutionEnd(app.baseUrl, started.id)).toMatchObject({ status: 'completed', artifactCount: 0 });
    expect(await artifactsOf(app.baseUrl, started.id)).toEqual([]);
  });

  it('the artifacts of an unknown execution are 404 NOT_FOUND', async () => {
    expectError(await api(app.baseUrl, 'GET', '/v1/executions/no-such-execution/artifacts'), 404, 'NOT_FOUND');
  });

  it.each([
    ['mediaType without a subtype', { mediaType: 'text' }],
    ['a wildcard media type', { mediaType: '*/*' }],
    ['a wildcard subtype', { mediaType: 'text/*' }],
    ['a space in the type', { mediaType: 'a b/c' }],
    ['a relative uri', { uri: 'files/report.pdf' }],
    ['a root-relative uri', { uri: '/report.pdf' }],
    ['a 256-character name', { name: 'n'.repeat(256) }],
  ])('%s fails the execution with PROVIDER_ERROR and stores nothing', async (_label, override) => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'text', text: 'partial ' },
      { type: 'artifact', name: 'good.txt', mediaType: 'text/plain', ...override },
      { type: 'text', text: 'never' },
    ]);
    const failed = await waitForExecutionEnd(app.baseUrl, started.id);
    expect(failed).toMatchObject({ status: 'failed', artifactCount: 0, outputText: null });
    expect(failed.error).toEqual({ code: 'PROVIDER_ERROR', message: expect.any(String) });

    const events = await replay(app.baseUrl, started.id);
    expect(typesOf(events)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.failed']);
    expect(countOf(events, 'artifact.created')).toBe(0);
    expect(await artifactsOf(app.baseUrl, started.id)).toEqual([]);
  });

  it('a 255-character name (in code points) is accepted', async () => {
    const name = '📄'.repeat(255);
    const started = await startScript(app.baseUrl, app.conversationId, [{ type: 'artifact', name, mediaType: 'image/png' }]);
    expect(await waitForExecutionEnd(app.baseUrl, started.id)).toMatchObject({ status: 'completed', artifactCount: 1 });
    expect((await artifactsOf(app.baseUrl, started.id))[0].name).toBe(name);
  });

  it('artifacts made before an invalid one stay; the invalid one and everything after is not stored', async () => {
    const started = await startScript(app.baseUrl, app.conversationId, [
      { type: 'artifact', name: 'first.txt', mediaType: 'text/plain' },
      { type: 'artifact', name: 'bad', mediaType: 'text/*' },
      { type: 'artifact', name: 'third.txt', mediaType: 'text/plain' },
    ]);
    const failed = await waitForExecutionEnd(app.baseUrl, started.id);
    expect(failed).toMatchObject({ status: 'failed', artifactCount: 1, error: { code: 'PROVIDER_ERROR' } });
    expect((await artifactsOf(app.baseUrl, started.id)).map((a) => a.name)).toEqual(['first.txt']);
    expect(typesOf(await replay(app.baseUrl, started.id))).toEqual(['run.queued', 'run.started', 'artifact.created', 'run.failed']);
  });

  it.each([
    ['uri not a string', { name: 'a', mediaType: 'text/plain', uri: 42 }],
    ['metadata not an object', { name: 'a', mediaType: 'text/plain', metadata: 'x' }],
    ['metadata an array', { name: 'a', mediaType: 'text/plain', metadata: [1] }],
    ['name missing', { mediaType: 'text/plain' }],
    ['mediaType not a string', { name: 'a', mediaType: 7 }],
    ['an unknown field', { name: 'a', mediaType: 'text/plain', size: 10 }],
    ['an empty name', { name: '', mediaType: 'text/plain' }],
    ['an empty mediaType', { name: 'a', mediaType: '' }],
    ['an empty uri', { name: 'a', mediaType: 'text/plain', uri: '' }],
  ])('a config shape error (%s) is 400 at the request and creates nothing', async (_label, fields) => {
    const conversation = await createConversation(app.baseUrl);
    const res = await startExecution(app.baseUrl, { conversationId: conversation, config: { script: [{ type: 'artifact', ...fields }] } });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect((await api(app.baseUrl, 'GET', `/v1/conversations/${conversation}`)).body.executions).toEqual([]);
  });
});
