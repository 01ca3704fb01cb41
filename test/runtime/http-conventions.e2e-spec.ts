import { api, createConversation, startExecution, useApp, waitForExecution } from '../support/app-harness';
import { expectError } from '../support/error-envelope';

/** docs/api.md#conventions: bodies, media types, limits, unknown routes, query parameters and opaque ids. */
describe('HTTP conventions (docs/api.md#conventions)', () => {
  const app = useApp();
  const MiB = 1024 * 1024;
  /** A syntactically valid JSON object of exactly `bytes` bytes. */
  const jsonOfSize = (bytes: number) => {
    const skeleton = '{"title":"x","metadata":{"pad":""}}';
    return `{"title":"x","metadata":{"pad":"${'a'.repeat(bytes - skeleton.length)}"}}`;
  };
  const post = (body: string | undefined, contentType?: string) =>
    api(app.baseUrl, 'POST', '/v1/conversations', body, contentType ? { 'content-type': contentType } : {});

  describe('request bodies', () => {
    it('a non-empty text/plain body is 415 VALIDATION_ERROR, even when it is valid JSON', async () => {
      expectError(await post('{"title":"x"}', 'text/plain'), 415, 'VALIDATION_ERROR');
      expectError(await post('title=x', 'application/x-www-form-urlencoded'), 415, 'VALIDATION_ERROR');
    });

    it('application/json with parameters is accepted', async () => {
      const res = await post('{"title":"charset"}', 'application/json; charset=utf-8');
      expect(res.status).toBe(201);
      expect(res.body.title).toBe('charset');
    });

    it('a body at the 1 MiB limit is accepted, one byte over is 413 PAYLOAD_TOO_LARGE', async () => {
      const atLimit = jsonOfSize(MiB);
      expect(Buffer.byteLength(atLimit)).toBe(MiB);
      expect((await post(atLimit)).status).toBe(201);
      const over = jsonOfSize(MiB + 1);
      expectError(await post(over), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('415 wins over 413, and 413 wins over malformed JSON', async () => {
      expectError(await post('x'.repeat(MiB + 1), 'text/plain'), 415, 'VALIDATION_ERROR');
      expectError(await post(`{"title": ${'['.repeat(MiB + 1)}`), 413, 'PAYLOAD_TOO_LARGE');
    });

    it.each(['{', '{"title":}', "{'title':'x'}", '{"title":"x"} trailing', 'nul'])('malformed JSON %p is 400', async (body) => {
      expectError(await post(body), 400, 'VALIDATION_ERROR');
    });

    it.each(['[]', '"title"', '42', 'null', 'true'])('a JSON body that is not an object (%s) is 400', async (body) => {
      expectError(await post(body), 400, 'VALIDATION_ERROR');
    });

    it('an empty POST body reads as {}: with no content type, with application/json, and whitespace only', async () => {
      for (const res of [await post(undefined), await post('', 'application/json'), await post('  \n', 'application/json')]) {
        expect(res.status).toBe(201);
        expect(res.body).toMatchObject({ title: null, metadata: {}, executions: [] });
      }
    });

    it('an empty body with another content type is still read as {} (only a non-empty body is 415)', async () => {
      const res = await post('', 'text/plain');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: null, metadata: {} });
    });

    it('a cancel with an empty body is accepted', async () => {
      const conversationId = await createConversation(app.baseUrl);
      const started = await startExecution(app.baseUrl, {
        conversationId,
        config: { script: [{ type: 'delay', ms: 30000 }] },
      });
      const res = await api(app.baseUrl, 'POST', `/v1/executions/${started.body.id}:cancel`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: started.body.id, status: 'cancelled', cancellation: { reason: null } });
      await waitForExecution(app.baseUrl, started.body.id);
    });
  });

  describe('routes', () => {
    it.each([
      ['GET', '/'],
      ['GET', '/v1'],
      ['GET', '/v1/nope'],
      ['GET', '/v2/runtime'],
      ['DELETE', '/v1/runtime'],
      ['POST', '/v1/runtime'],
      ['PUT', '/v1/conversations'],
      ['GET', '/v1/conversations'],
      ['GET', '/v1/executions/x/nope'],
      ['PATCH', '/v1/executions/x'],
      ['POST', '/v1/executions/x:explode'],
    ])('%s %s is 404 NOT_FOUND in the error envelope', async (method, path) => {
      expectError(await api(app.baseUrl, method, path), 404, 'NOT_FOUND');
    });

    it('an unknown route with query parameters or a non-JSON body is still 404', async () => {
      expectError(await api(app.baseUrl, 'GET', '/v1/nope?x=1'), 404, 'NOT_FOUND');
      expectError(await api(app.baseUrl, 'POST', '/v1/nope', 'text', { 'content-type': 'text/plain' }), 404, 'NOT_FOUND');
    });
  });

  describe('query parameters', () => {
    let executionId: string;
    let conversationId: string;
    beforeAll(async () => {
      conversationId = await createConversation(app.baseUrl);
      executionId = (await startExecution(app.baseUrl, { conversationId })).body.id;
      await waitForExecution(app.baseUrl, executionId);
    });

    const routes = () => [
      ['GET', '/v1/runtime'],
      ['GET', '/v1/providers'],
      ['GET', '/v1/providers/scripted'],
      ['GET', `/v1/conversations/${conversationId}`],
      ['POST', '/v1/conversations'],
      ['GET', `/v1/executions/${executionId}`],
      ['GET', `/v1/executions/${executionId}/events`],
      ['GET', `/v1/executions/${executionId}/actions`],
      ['GET', `/v1/executions/${executionId}/artifacts`],
      ['POST', `/v1/executions/${executionId}:cancel`],
      ['POST', '/v1/executions'],
    ];

    it('an unknown query parameter is 400 on every route', async () => {
      for (const [method, path] of routes()) expectError(await api(app.baseUrl, method, `${path}?x=1`), 400, 'VALIDATION_ERROR');
    });

    it('an empty query parameter is 400 on every route', async () => {
      for (const [method, path] of routes()) expectError(await api(app.baseUrl, method, `${path}?x=`), 400, 'VALIDATION_ERROR');
      expectError(await api(app.baseUrl, 'GET', `/v1/executions/${executionId}/events?after=`), 400, 'VALIDATION_ERROR');
      expectError(await api(app.baseUrl, 'GET', `/v1/executions/${executionId}/events?limit`), 400, 'VALIDATION_ERROR');
    });

    it('a repeated query parameter is 400', async () => {
      const path = `/v1/executions/${executionId}/events`;
      expectError(await api(app.baseUrl, 'GET', `${path}?after=1&after=1`), 400, 'VALIDATION_ERROR');
      expectError(await api(app.baseUrl, 'GET', `${path}?limit=1&limit=2`), 400, 'VALIDATION_ERROR');
    });

    it('the query is checked before the body and before any lookup', async () => {
      expectError(await api(app.baseUrl, 'POST', '/v1/executions?x=1', { nope: true }), 400, 'VALIDATION_ERROR');
      expectError(await api(app.baseUrl, 'GET', '/v1/executions/unknown?x=1'), 400, 'VALIDATION_ERROR');
      expectError(await api(app.baseUrl, 'GET', '/v1/conversations/unknown?x=1'), 400, 'VALIDATION_ERROR');
    });

    it('a POST with a bad query creates nothing', async () => {
      const res = await api(app.baseUrl, 'POST', '/v1/executions?x=1', { conversationId, provider: 'scripted', input: { text: 'q' } });
      expectError(res, 400, 'VALIDATION_ERROR');
      const conversation = await api(app.baseUrl, 'GET', `/v1/conversations/${conversationId}`);
      expect(conversation.body.executions.map((e: { id: string }) => e.id)).toEqual([executionId]);
    });
  });

  describe('opaque ids', () => {
    const ids = [
      'abc:unknown',
      'unknown',
      '0190f5d4-6b3e-7c3a-8f00-000000000000',
      '%F0%9F%98%80',
      'a'.repeat(300),
      '%20',
      'a%2Fb',
      // NUL cannot even be stored in PostgreSQL text: still just an unknown id.
      '%00',
    ];

    it.each(ids)('an unknown execution id %p is 404 NOT_FOUND on every execution route', async (id) => {
      expectError(await api(app.baseUrl, 'GET', `/v1/executions/${id}`), 404, 'NOT_FOUND');
      expectError(await api(app.baseUrl, 'GET', `/v1/executions/${id}/events`), 404, 'NOT_FOUND');
      expectError(await api(app.baseUrl, 'POST', `/v1/executions/${id}:cancel`), 404, 'NOT_FOUND');
    });

    it.each(ids)('an unknown conversation id %p is 404 NOT_FOUND', async (id) => {
      expectError(await api(app.baseUrl, 'GET', `/v1/conversations/${id}`), 404, 'NOT_FOUND');
    });
  });
});
