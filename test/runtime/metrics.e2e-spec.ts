import { api, readSse, useApp } from '../support/app-harness';

/** `/metrics` in Prometheus' text format, moving with requests and appends. */
describe('metrics', () => {
  const app = useApp({ env: { API_KEYS: 'acme:key-acme-0123456789abc' } });
  const auth = { authorization: 'Bearer key-acme-0123456789abc' };

  /** The value of one series (`name{labels}`), 0 when absent. */
  async function scrape(): Promise<(series: string) => number> {
    const res = await api(app.baseUrl, 'GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return (series) => {
      const line = res.text.split('\n').find((l) => l.startsWith(`${series} `));
      return line ? Number(line.slice(series.length + 1)) : 0;
    };
  }

  it('needs no key, and counts requests, appends, executions, group commits and open streams', async () => {
    const before = await scrape();
    const conversationId = (await api(app.baseUrl, 'POST', '/v1/conversations', {}, auth)).body.id;
    const started = await api(app.baseUrl, 'POST', '/v1/executions', { conversationId, provider: 'scripted', input: { text: 'a b c' } }, auth);
    for (let i = 0; (await api(app.baseUrl, 'GET', `/v1/executions/${started.body.id}`, undefined, auth)).body.status !== 'completed'; i++) {
      if (i > 300) throw new Error('not completed');
      await new Promise((r) => setTimeout(r, 10));
    }
    const waiting = await api(
      app.baseUrl,
      'POST',
      '/v1/executions',
      {
        conversationId,
        provider: 'scripted',
        input: { text: 'x' },
        config: { script: [{ type: 'delay', ms: 60000 }] },
      },
      auth,
    );
    const stream = readSse(app.baseUrl, `/v1/executions/${waiting.body.id}/events`, auth, (m) => m.some((x) => x.event === 'run.cancelled'));
    await new Promise((r) => setTimeout(r, 200));
    const after = await scrape();
    await api(app.baseUrl, 'POST', `/v1/executions/${waiting.body.id}:cancel`, {}, auth);
    await stream;

    const route = 'runledger_http_request_duration_seconds_count{method="POST",route="/v1/executions",status="201"}';
    expect(after(route) - before(route)).toBe(2);
    expect(after('runledger_events_appended_total') - before('runledger_events_appended_total')).toBeGreaterThanOrEqual(9);
    expect(after('runledger_executions_started_total{provider="scripted"}') - before('runledger_executions_started_total{provider="scripted"}')).toBe(2);
    expect(after('runledger_executions_ended_total{status="completed",provider="scripted"}')).toBeGreaterThanOrEqual(1);
    // Both stores group-commit and report each commit's size.
    expect(after('runledger_group_commit_appends_count')).toBeGreaterThan(before('runledger_group_commit_appends_count'));
    expect(after('runledger_append_duration_seconds_count')).toBeGreaterThan(0);
    expect(after('runledger_sse_streams_open')).toBe(1);
    expect(after('runledger_projection_lag_events{projection="executions"}')).toBe(0);
    expect(after('process_cpu_user_seconds_total')).toBeGreaterThan(0);
  });
});
