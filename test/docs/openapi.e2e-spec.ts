import { getMetadataStorage } from 'class-validator';
import { api, useApp } from '../support/app-harness';
import { openApiPath, servedRoutes } from './served-routes';

type Operation = { responses: Record<string, any>; requestBody?: any; security?: unknown[]; parameters?: any[] };

/** The docs' and the console's own pages and files are not part of the API they describe. */
const isDocsRoute = (url: string) => /^\/(docs|console)([/*]|$)/.test(url);

/** Statuses each route answers per the binding, beyond 400/401/429/500/503 that every /v1 route has. */
const ROUTE_STATUSES: Record<string, number[]> = {
  'GET /v1/runtime': [200],
  'GET /v1/providers': [200],
  'GET /v1/providers/{providerId}': [200, 404],
  'POST /v1/conversations': [201, 413, 415],
  'GET /v1/conversations/{id}': [200, 404],
  'POST /v1/executions': [200, 201, 404, 409, 413, 415, 422, 502],
  'GET /v1/executions/{id}': [200, 404],
  'POST /v1/executions/{id}:cancel': [200, 404, 409, 413, 415],
  'GET /v1/executions/{id}/events': [200, 204, 404],
  'GET /v1/executions/{id}/actions': [200, 404],
  'POST /v1/executions/{id}/actions/{actionId}:respond': [200, 404, 409, 413, 415],
  'GET /v1/executions/{id}/artifacts': [200, 404],
  'GET /v1/executions': [200],
  'GET /v1/events': [200],
  'POST /v1/responses': [200, 404, 409, 413, 415, 422],
  'GET /v1/responses/{id}': [200, 404],
  'POST /v1/responses/{id}/cancel': [200, 404, 413, 415],
  'GET /v1/responses/{id}/input_items': [200, 404],
};

describe('OpenAPI document', () => {
  const app = useApp();
  let doc: any;
  const operations = () =>
    Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, path, op })),
    );

  beforeAll(async () => {
    const res = await api(app.baseUrl, 'GET', '/docs/json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.body;
  });

  it('covers every route the app serves, with its method, and documents no route it does not serve', () => {
    const fastify = app.app.getHttpAdapter().getInstance();
    const routes = servedRoutes(fastify).filter((r) => !isDocsRoute(r.url));
    const served = new Set(routes.map((r) => `${r.method} ${openApiPath(r.url)}`));
    // Fastify adds HEAD to every GET; OpenAPI's GET stands for both.
    const expected = [...served].filter((key) => !(key.startsWith('HEAD ') && served.has(key.replace(/^HEAD/, 'GET'))));
    // The route listing was really read (a format change must fail here, not pass vacuously).
    expect(expected).toEqual(expect.arrayContaining(['GET /v1/runtime', 'POST /v1/executions/{id}:cancel', 'GET /health/ready']));
    const documented = operations().map((o) => o.key);
    expect(expected.filter((key) => !documented.includes(key))).toEqual([]);
    expect(documented.filter((key) => !served.has(key))).toEqual([]);
  });

  it("documents each /v1 route's statuses, and every error in the binding's envelope", () => {
    for (const { key, op } of operations()) {
      const statuses = Object.keys(op.responses).map(Number);
      if (key.includes(' /v1/')) {
        expect({ key, statuses }).toEqual({ key, statuses: expect.arrayContaining([400, 401, 429, 500, 503, ...(ROUTE_STATUSES[key] ?? [])]) });
      }
      expect({ key, success: statuses.some((s) => s >= 200 && s < 300) }).toEqual({ key, success: true });
      for (const status of statuses.filter((s) => s >= 400)) {
        const content = op.responses[status].content?.['application/json'];
        // The OpenAI binding answers OpenAI's error shape (docs/responses-api.md#errors); every other route the binding's.
        const envelope = key.includes(' /v1/responses') ? 'OpenAiErrorEnvelope' : 'ErrorEnvelope';
        expect({ key, status, schema: content?.schema }).toEqual({ key, status, schema: { $ref: `#/components/schemas/${envelope}` } });
        for (const example of Object.values<any>(content.examples ?? {})) expect(Object.keys(example.value)).toEqual(['error']);
      }
      if (key.startsWith('POST ')) expect({ key, body: op.requestBody?.content?.['application/json']?.schema }).toEqual({ key, body: expect.anything() });
    }
    expect(Object.keys(ROUTE_STATUSES).filter((key) => !operations().some((o) => o.key === key))).toEqual([]);
  });

  it('has the response schemas and the error envelope', () => {
    const schemas = doc.components.schemas;
    for (const name of ['Conversation', 'Execution', 'Event', 'EventPage', 'Action', 'Artifact', 'ProviderManifest', 'RuntimeInfo', 'ErrorEnvelope']) {
      expect({ name, present: name in schemas }).toEqual({ name, present: true });
    }
    expect(schemas.ErrorEnvelope).toMatchObject({ required: ['error'], properties: { error: { $ref: '#/components/schemas/ApiErrorBody' } } });
    expect(schemas.ApiErrorBody.required).toEqual(['code', 'message']);
    expect(schemas.ApiErrorBody.properties.code.enum).toEqual(
      expect.arrayContaining([
        'VALIDATION_ERROR',
        'UNAUTHENTICATED',
        'NOT_FOUND',
        'CAPABILITY_UNSUPPORTED',
        'RATE_LIMITED',
        'SERVICE_UNAVAILABLE',
        'INTERNAL_ERROR',
      ]),
    );
    expect(schemas.Event.properties.type.enum).toHaveLength(11);
    expect(schemas.Event.properties.data.oneOf).toHaveLength(11);
  });

  it('documents HEAD beside every GET, as Fastify serves it, with the same statuses', () => {
    const fastify = app.app.getHttpAdapter().getInstance();
    const heads = servedRoutes(fastify)
      .filter((r) => r.method === 'HEAD' && !isDocsRoute(r.url))
      .map((r) => openApiPath(r.url));
    expect(heads).toEqual(expect.arrayContaining(['/v1/executions/{id}', '/health/live']));
    for (const path of heads) {
      const item = doc.paths[path];
      expect({ path, head: Object.keys(item.head?.responses ?? {}) }).toEqual({ path, head: Object.keys(item.get.responses) });
    }
  });

  it('documents 431, which Node answers before any route, on every route', () => {
    for (const { key, op } of operations()) expect({ key, has431: '431' in op.responses }).toEqual({ key, has431: true });
  });

  it("documents GET /v1/runtime's projections", () => {
    expect(doc.components.schemas.RuntimeInfo.required).toEqual(expect.arrayContaining(['projections']));
    expect(doc.components.schemas.ProjectionStatus).toMatchObject({ required: ['name', 'position', 'lag'] });
  });

  it('says null where null is allowed in a way OpenAPI 3.0 validators read: nullable only beside a type', () => {
    const misplaced: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${at}/${i}`));
      if (node === null || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.nullable === true && schema.type === undefined) misplaced.push(at);
      for (const [key, value] of Object.entries(schema)) if (key !== 'example' && key !== 'examples') walk(value, `${at}/${key}`);
    };
    walk(doc, '#');
    expect(misplaced).toEqual([]);
    expect(doc.components.schemas.Execution.properties.error.oneOf).toContainEqual({ $ref: '#/components/schemas/ExecutionError' });
  });

  it("closes each event type's data, so an event's data matches one branch of Event.data", () => {
    for (const branch of doc.components.schemas.Event.properties.data.oneOf) {
      const name = branch.$ref.split('/').pop();
      expect({ name, additionalProperties: doc.components.schemas[name].additionalProperties }).toEqual({ name, additionalProperties: false });
    }
  });

  it('documents the event stream variant of the events route', () => {
    const events = doc.paths['/v1/executions/{id}/events'].get as Operation;
    expect(Object.keys(events.responses[200].content)).toEqual(['application/json', 'text/event-stream']);
    expect(events.responses[200].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EventPage' });
    expect(events.responses[204]).toBeDefined();
    expect(events.parameters!.map((p) => `${p.in}:${p.name}`)).toEqual(
      expect.arrayContaining(['path:id', 'query:after', 'query:limit', 'header:Last-Event-ID']),
    );
  });

  it('names bearer auth for the API and none for the probes', () => {
    expect(doc.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/health/live'].get.security).toEqual([]);
    expect(doc.paths['/health/ready'].get.security).toEqual([]);
  });

  it('describes every field of every request DTO (tsc builds run no Swagger plugin)', () => {
    // Every class class-validator checks is a request body: each must be in the document with all its fields.
    const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<Function, { propertyName: string }[]> };
    const dtos = [...storage.validationMetadatas].filter(([target]) => target.name.endsWith('Dto'));
    expect(dtos.length).toBeGreaterThanOrEqual(4);
    for (const [target, rules] of dtos) {
      const fields = [...new Set(rules.map((rule) => rule.propertyName))].sort();
      const schema = doc.components.schemas[target.name];
      expect({ dto: target.name, fields: Object.keys(schema?.properties ?? {}).sort() }).toEqual({ dto: target.name, fields });
    }
  });
});

describe('Swagger UI', () => {
  const app = useApp({ env: { API_KEYS: 'acme:key-1-0123456789abcdef' } });

  it('serves /docs as HTML whose scripts and styles load, with no inline script (so a CSP can forbid them)', async () => {
    const page = await api(app.baseUrl, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('id="swagger-ui"');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const assets = [...page.text.matchAll(/(?:src|href)="(\.\/docs\/[^"]+)"/g)].map((m) => m[1].slice(1));
    expect(assets).toEqual(expect.arrayContaining(['/docs/swagger-ui.css', '/docs/swagger-ui-bundle.js', '/docs/swagger-ui-init.js']));
    for (const asset of assets) expect({ asset, status: (await api(app.baseUrl, 'GET', asset)).status }).toEqual({ asset, status: 200 });
  });

  it('needs no key when auth is on, while the API still does', async () => {
    expect((await api(app.baseUrl, 'GET', '/docs/json')).status).toBe(200);
    expect((await api(app.baseUrl, 'GET', '/v1/runtime')).status).toBe(401);
  });
});
