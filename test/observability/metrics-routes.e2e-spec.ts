import { api, createConversation, readSse, startExecution, useApp, waitForExecution } from '../support/app-harness';

/**
 * The HTTP metrics name routes as the OpenAPI document and the spans do (docs/operations.md#metrics),
 * and an SSE stream's lifetime is not a request latency: it has a histogram of its own.
 */
describe('HTTP metrics: route names and SSE streams', () => {
  const app = useApp();

  async function scrape(): Promise<{ text: string; value: (series: string) => number }> {
    const res = await api(app.baseUrl, 'GET', '/metrics');
    expect(res.status).toBe(200);
    return {
      text: res.text,
      value: (series) => {
        const line = res.text.split('\n').find((l) => l.startsWith(`${series} `));
        return line ? Number(line.slice(series.length + 1)) : 0;
      },
    };
  }

  it("labels a route with its OpenAPI path, never Fastify's pattern syntax", async () => {
    const conversationId = await createConversation(app.baseUrl);
    const started = await startExecution(app.baseUrl, { conversationId, config: { script: [{ type: 'delay', ms: 60000 }] } });
    expect((await api(app.baseUrl, 'POST', `/v1/executions/${started.body.id}:cancel`, {})).status).toBe(200);
    expect((await api(app.baseUrl, 'GET', `/v1/executions/${started.body.id}`)).status).toBe(200);

    const { text, value } = await scrape();
    expect(value('runledger_http_request_duration_seconds_count{method="POST",route="/v1/executions/{id}:cancel",status="200"}')).toBe(1);
    expect(value('runledger_http_request_duration_seconds_count{method="GET",route="/v1/executions/{id}",status="200"}')).toBeGreaterThanOrEqual(1);
    const routes = [...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]);
    expect(routes.length).toBeGreaterThan(0);
    expect(routes.filter((route) => /[()^]|::|\/:/.test(route))).toEqual([]);
  });

  it('observes an SSE stream in the stream-duration histogram, not in the request latencies', async () => {
    const conversationId = await createConversation(app.baseUrl);
    const started = await startExecution(app.baseUrl, { conversationId });
    await waitForExecution(app.baseUrl, started.body.id);
    const before = await scrape();

    const stream = await readSse(app.baseUrl, `/v1/executions/${started.body.id}/events`);
    expect(stream.status).toBe(200);
    expect(stream.messages.some((m) => m.event === 'run.completed')).toBe(true);
    const sse = 'runledger_sse_stream_duration_seconds_count{route="/v1/executions/{id}/events"}';
    const latency = 'runledger_http_request_duration_seconds_count{method="GET",route="/v1/executions/{id}/events",status="200"}';
    // The closing hook runs once the response has ended, which the client may see a little earlier.
    let after = await scrape();
    for (let tries = 0; after.value(sse) === before.value(sse) && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await scrape();
    }
    expect(after.value(sse) - before.value(sse)).toBe(1);
    expect(after.value(latency) - before.value(latency)).toBe(0);
    // The JSON replay on the same route is a request like any other.
    expect((await api(app.baseUrl, 'GET', `/v1/executions/${started.body.id}/events`)).status).toBe(200);
    expect((await scrape()).value(latency) - before.value(latency)).toBe(1);
  });
});
