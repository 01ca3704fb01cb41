import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, createConversation, tempSqlitePath, waitForExecution } from '../support/app-harness';
import { logLines } from '../support/json-logs';
import { built, exitWithin, killLeftovers, launch, MAIN } from '../runtime/compiled-server';
import { OtlpReceiver, ReceivedSpan } from './support/otlp-receiver';

/**
 * OpenTelemetry spans for HTTP, command handling, appends and provider calls,
 * exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set — and the SDK not even loaded
 * when it is not. Against the compiled server, with a local receiver standing in for a collector.
 */
const describeBuilt = built ? describe : describe.skip;
if (!built) process.stderr.write(`traces suite skipped: ${MAIN} is missing; run npm run build (npm test does)\n`);

const PRELOAD = join(__dirname, 'support', 'report-loaded-modules.js');
const SERVER_KIND = 2;
const ERROR_STATUS = 2;

/** The compiled server, reporting at exit which @opentelemetry modules it loaded. */
function launchReporting(env: Record<string, string>) {
  const loadedModulesFile = `${tempSqlitePath()}.modules.json`;
  const server = launch({ ...env, LOADED_MODULES_FILE: loadedModulesFile }, { file: process.execPath, args: ['--require', PRELOAD, MAIN] });
  const loaded = (): string[] => JSON.parse(readFileSync(loadedModulesFile, 'utf8'));
  return { server, loaded };
}

const packagesOf = (paths: string[]) => [...new Set(paths.map((path) => /@opentelemetry[\\/]([^\\/]+)/.exec(path)![1]))].sort();

describeBuilt('traces (compiled server)', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => (receiver = await OtlpReceiver.start()));
  afterAll(() => receiver.stop());
  afterEach(killLeftovers);

  it('exports the HTTP request, its command and append in one trace, and the run with its provider call linked to it', async () => {
    const { server: launched, loaded } = launchReporting({
      SQLITE_PATH: tempSqlitePath(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const server = await launched;
    const conversationId = await createConversation(server.baseUrl);
    // The caller's W3C trace context is honoured: the request joins the caller's trace.
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const started = await api(
      server.baseUrl,
      'POST',
      '/v1/executions',
      { conversationId, provider: 'scripted', input: { text: 'hello traced world' } },
      { traceparent: `00-${traceId}-${callerSpanId}-01` },
    );
    expect(started.status).toBe(201);
    const id: string = started.body.id;
    expect((await waitForExecution(server.baseUrl, id)).status).toBe('completed');

    const ofExecution = (s: ReceivedSpan) => s.attributes['runledger.execution_id'] === id;
    const spans = await receiver.waitFor(
      (all) =>
        all.some((s) => s.name === 'POST /v1/executions' && s.traceId === traceId) &&
        all.some((s) => s.name === 'execution run' && ofExecution(s)) &&
        all.some((s) => s.name === 'provider.run' && ofExecution(s)) &&
        all.filter((s) => s.name === 'eventstore.append' && s.attributes['runledger.stream_id'] === `execution-${id}`).length >= 4,
    );

    const http = spans.find((s) => s.name === 'POST /v1/executions' && s.traceId === traceId)!;
    expect(http).toMatchObject({
      parentSpanId: callerSpanId,
      kind: SERVER_KIND,
      scope: '@opentelemetry/instrumentation-http',
      attributes: expect.objectContaining({ 'http.route': '/v1/executions', 'http.response.status_code': 201 }),
      resource: expect.objectContaining({ 'service.name': 'runledger' }),
    });

    // The command, and the append of run.queued it makes, are children of the request.
    const command = spans.find((s) => s.name === 'command StartExecution' && ofExecution(s))!;
    expect(command).toMatchObject({
      traceId,
      parentSpanId: http.spanId,
      attributes: expect.objectContaining({ 'runledger.command': 'StartExecution', 'runledger.tenant_id': 'default' }),
    });
    const appends = spans.filter((s) => s.name === 'eventstore.append' && s.attributes['runledger.stream_id'] === `execution-${id}`);
    const queued = appends.find((s) => s.attributes['runledger.expected_revision'] === 'no_stream')!;
    expect(queued).toMatchObject({
      traceId,
      parentSpanId: command.spanId,
      attributes: expect.objectContaining({ 'runledger.event_count': 1, 'runledger.next_revision': 0, 'runledger.event_store': 'sqlite' }),
    });

    // The run outlives the request: a trace of its own, linked to the command that launched it,
    // holding the provider call and the appends of the run's events.
    const run = spans.find((s) => s.name === 'execution run' && ofExecution(s))!;
    expect(run.traceId).not.toBe(traceId);
    expect(run.parentSpanId).toBeUndefined();
    expect(run.links).toEqual([{ traceId, spanId: command.spanId }]);
    const provider = spans.find((s) => s.name === 'provider.run' && ofExecution(s))!;
    expect(provider).toMatchObject({
      traceId: run.traceId,
      parentSpanId: run.spanId,
      attributes: expect.objectContaining({ 'runledger.provider': 'scripted' }),
    });
    const runAppends = appends.filter((s) => s.traceId === run.traceId);
    expect(runAppends.length).toBeGreaterThanOrEqual(3);
    expect(runAppends.every((s) => s.parentSpanId === run.spanId || s.parentSpanId === provider.spanId)).toBe(true);
    expect(receiver.unexpected).toEqual([]);

    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
    expect(packagesOf(loaded())).toEqual(expect.arrayContaining(['api', 'instrumentation-http', 'sdk-node']));
    // The SDK's own messages, were there any, would be JSON lines like the rest.
    expect(logLines(server.stdout()).at(-1)).toMatchObject({ msg: 'shut down' });
  });

  it('a 404 or 409 answer and a revision conflict are no ERROR spans; provider.cleanup is in the execution trace', async () => {
    const server = await launch({
      SQLITE_PATH: tempSqlitePath(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    const start = (body: Record<string, unknown>) => api(server.baseUrl, 'POST', '/v1/executions', { provider: 'scripted', input: { text: 'x' }, ...body });
    expect((await start({ conversationId: 'no-such-conversation' })).status).toBe(404);
    const conversationId = await createConversation(server.baseUrl);
    // The same key twice: the second claim's append conflicts, which is how it learns of the first.
    const first = await start({ conversationId, idempotencyKey: 'traced-key' });
    expect(first.status).toBe(201);
    expect((await start({ conversationId, idempotencyKey: 'traced-key' })).status).toBe(200);
    expect((await waitForExecution(server.baseUrl, first.body.id)).status).toBe('completed');
    expect((await api(server.baseUrl, 'POST', `/v1/executions/${first.body.id}:cancel`, {})).status).toBe(409);
    // A cancel of a waiting run: its cleanup is the execution's work, not the request's.
    const waiting = await start({ conversationId, config: { script: [{ type: 'delay', ms: 60000 }] } });
    expect((await api(server.baseUrl, 'POST', `/v1/executions/${waiting.body.id}:cancel`, {})).status).toBe(200);

    const ofWaiting = (s: ReceivedSpan) => s.attributes['runledger.execution_id'] === waiting.body.id;
    const spans = await receiver.waitFor(
      (all) =>
        all.some((s) => s.name === 'command StartExecution' && s.attributes['runledger.outcome'] === 'NOT_FOUND') &&
        all.some((s) => s.name === 'command CancelExecution' && s.attributes['runledger.outcome'] === 'INVALID_STATE') &&
        all.some((s) => s.name === 'eventstore.append' && s.attributes['runledger.outcome'] === 'REVISION_CONFLICT') &&
        all.some((s) => s.name === 'POST /v1/executions/{id}:cancel' && s.attributes['http.response.status_code'] === 409) &&
        all.some((s) => s.name === 'POST /v1/executions/{id}:cancel' && s.attributes['http.response.status_code'] === 200) &&
        all.some((s) => s.name === 'provider.cleanup' && ofWaiting(s)) &&
        all.some((s) => s.name === 'provider.run' && ofWaiting(s)) &&
        all.some((s) => s.name === 'execution run' && ofWaiting(s)),
    );
    const refused = spans.filter((s) => s.attributes['runledger.outcome'] !== undefined);
    expect(refused.map((s) => s.events)).toEqual(refused.map(() => ['expected outcome']));
    expect(spans.filter((s) => s.status === ERROR_STATUS).map((s) => s.name)).toEqual([]);
    // The cancel stopped the provider: what that made it throw is the cancel's doing, not a fault.
    expect(spans.find((s) => s.name === 'provider.run' && ofWaiting(s))!.attributes['runledger.outcome']).toBe('STOPPED');

    const run = spans.find((s) => s.name === 'execution run' && ofWaiting(s))!;
    const cleanup = spans.find((s) => s.name === 'provider.cleanup' && ofWaiting(s))!;
    const cancel = spans.find((s) => s.name === 'POST /v1/executions/{id}:cancel' && s.attributes['http.response.status_code'] === 200)!;
    expect(cleanup).toMatchObject({ traceId: run.traceId, parentSpanId: run.spanId });
    expect(cleanup.traceId).not.toBe(cancel.traceId);
    expect(cancel.attributes['http.route']).toBe('/v1/executions/{id}:cancel');
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
  });

  it("a key sent in the query string by mistake is redacted from the span's url.query", async () => {
    const secret = 'acme-key-in-the-url-0123456789';
    const server = await launch({
      SQLITE_PATH: tempSqlitePath(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    expect((await api(server.baseUrl, 'GET', `/v1/runtime?token=${secret}`)).status).toBe(400);
    expect((await api(server.baseUrl, 'GET', `/v1/providers?${secret}`)).status).toBe(400);
    const spans = await receiver.waitFor(
      (all) =>
        all.some((s) => s.name === 'GET /v1/runtime' && 'url.query' in s.attributes) &&
        all.some((s) => s.name === 'GET /v1/providers' && 'url.query' in s.attributes),
    );
    expect(spans.find((s) => s.name === 'GET /v1/runtime' && 'url.query' in s.attributes)!.attributes['url.query']).toBe('token=[redacted]');
    expect(spans.find((s) => s.name === 'GET /v1/providers' && 'url.query' in s.attributes)!.attributes['url.query']).toBe('[redacted]');
    expect(JSON.stringify(spans)).not.toContain(secret);
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
  });

  it('without OTEL_EXPORTER_OTLP_ENDPOINT no SDK module is loaded, and nothing is sent', async () => {
    const before = receiver.spans.length;
    const { server: launched, loaded } = launchReporting({ SQLITE_PATH: tempSqlitePath(), OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' });
    const server = await launched;
    const conversationId = await createConversation(server.baseUrl);
    const started = await api(server.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'untraced' } });
    await waitForExecution(server.baseUrl, started.body.id);
    server.child.kill('SIGTERM');
    expect(await exitWithin(server, 10000)).toEqual({ code: 0, signal: null });
    // Only the API (a no-op without an SDK) — which other libraries load as well.
    expect(packagesOf(loaded())).toEqual(['api']);
    expect(receiver.spans.length).toBe(before);
  });
});
