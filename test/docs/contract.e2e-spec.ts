import { createApiDocument } from '../../src/openapi/api-docs';
import { api, readSse, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { ContractChecker, RecordedResponse, recordResponses } from '../support/contract';

/**
 * The harness checks every response of the e2e suites against the document (app-harness.ts); this
 * suite shows that check is not vacuous: it reads real answers, and it catches a broken one.
 */
describe('the OpenAPI contract check', () => {
  const app = useApp({ conversation: true });
  let checker: ContractChecker;
  const recorded: RecordedResponse[] = [];

  beforeAll(async () => {
    checker = new ContractChecker(createApiDocument(app.app));
    const local = recordResponses(app.app.getHttpServer());
    const started = await startExecution(app.baseUrl, { conversationId: app.conversationId, config: { script: [{ type: 'text', text: 'hi' }] } });
    await waitForExecution(app.baseUrl, started.body.id);
    await api(app.baseUrl, 'GET', `/v1/executions/${started.body.id}`);
    await api(app.baseUrl, 'HEAD', `/v1/executions/${started.body.id}`);
    await api(app.baseUrl, 'GET', `/v1/executions/${started.body.id}/events`);
    await readSse(app.baseUrl, `/v1/executions/${started.body.id}/events`);
    await api(app.baseUrl, 'GET', '/v1/runtime');
    await api(app.baseUrl, 'GET', '/v1/executions/nope');
    recorded.push(...local.filter((r) => r.url.startsWith('/v1/')));
  });

  const find = (method: string, pattern: RegExp, status = 200) => recorded.find((r) => r.method === method && pattern.test(r.url) && r.status === status)!;

  it('passes the real answers, JSON, HEAD and SSE alike', () => {
    expect(recorded.map((r) => `${r.method} ${r.status} ${r.contentType?.split(';')[0]}`)).toEqual(
      expect.arrayContaining(['POST 201 application/json', 'HEAD 200 application/json', 'GET 200 text/event-stream', 'GET 404 application/json']),
    );
    expect(checker.problems(recorded)).toEqual([]);
  });

  it('fails a body that leaves out a field, or holds one of the wrong type', () => {
    const execution = find('GET', /^\/v1\/executions\/[^/]+$/);
    const { lastSequence, ...body } = JSON.parse(execution.body);
    expect(lastSequence).toBeGreaterThan(0);
    expect(checker.problems([{ ...execution, body: JSON.stringify(body) }])).toEqual([expect.stringContaining("must have required property 'lastSequence'")]);
    expect(checker.problems([{ ...execution, body: JSON.stringify({ ...body, lastSequence, cancellation: 'no' }) }])).toHaveLength(1);
  });

  it('fails an event whose data is not its type’s, on the JSON replay and in the stream', () => {
    const replay = find('GET', /\/events$/);
    const page = JSON.parse(replay.body);
    page.events[0].data = { provider: 'scripted', extra: true };
    expect(checker.problems([{ ...replay, body: JSON.stringify(page) }])).toHaveLength(1);
    const stream = recorded.find((r) => r.contentType?.startsWith('text/event-stream'))!;
    const broken = stream.body.replace(/"sequence":1,/, '"sequence":"one",');
    expect(broken).not.toEqual(stream.body);
    expect(checker.problems([{ ...stream, body: broken }])).toEqual([expect.stringContaining('an SSE message: data/sequence must be integer')]);
  });

  it('fails a status or a content type the route does not document', () => {
    const runtime = find('GET', /^\/v1\/runtime$/);
    expect(checker.problems([{ ...runtime, status: 418 }])).toEqual([expect.stringContaining('status 418 is not documented')]);
    expect(checker.problems([{ ...runtime, contentType: 'text/html' }])).toEqual([expect.stringContaining('content-type text/html is not documented')]);
  });
});
