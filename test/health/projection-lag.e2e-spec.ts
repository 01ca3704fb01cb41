import { EVENT_STORE, EventStore, NewEvent } from '../../src/event-store/event-store';
import { EventStoreGateway } from '../../src/event-store/event-store-gateway';
import { LAG_COUNT_CAP } from '../../src/read-models/projection-status';
import { Projector } from '../../src/read-models/projector';
import { api, useApp } from '../support/app-harness';

/**
 * /health/ready and /metrics answer anyone: the projection lag they report is counted by the
 * store, not read from it, so a caller cannot make the server read and parse thousands of events
 * per request while projections are far behind.
 */
const BEHIND = 20_000;

const filler = (stream: number, n: number): NewEvent[] =>
  Array.from({ length: n }, (_, i) => ({
    type: 'test.filler',
    data: { stream, i, text: 'an event no projection has applied yet' },
    metadata: { tenantId: 'default', schemaVersion: 1, correlationId: null, causationId: null },
  }));

describe('projection lag far behind the log', () => {
  const app = useApp();
  let eventsRead = 0;

  beforeAll(async () => {
    // The projector stops, so everything appended from here on stays unprojected.
    await app.app.get(Projector).stop();
    const store = app.app.get<EventStore>(EVENT_STORE);
    const appends: Promise<unknown>[] = [];
    for (let s = 0; s < BEHIND / 500; s++) appends.push(store.append(`execution-lag-${s}`, filler(s, 500), 'no_stream'));
    await Promise.all(appends);
    // Every event any read returns from here on, whoever reads.
    const adapter = (store as EventStoreGateway).inner;
    for (const method of ['readAll', 'readStream'] as const) {
      const real = adapter[method].bind(adapter) as (...args: unknown[]) => Promise<unknown[]>;
      (adapter as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
        const events = await real(...args);
        eventsRead += events.length;
        return events;
      };
    }
  });

  it('readiness says how far behind, without reading the events', async () => {
    const res = await api(app.baseUrl, 'GET', '/health/ready');
    expect(res.status).toBe(503);
    expect(res.body.error.details.checks.projections).toMatchObject({ status: 'down', lag: LAG_COUNT_CAP });
    expect(eventsRead).toBe(0);
  });

  it('/metrics and /v1/runtime report the lag (capped), without reading the events', async () => {
    const metrics = await api(app.baseUrl, 'GET', '/metrics');
    expect(metrics.text).toMatch(new RegExp(`^runledger_projection_lag_events\\{projection="[^"]+"\\} ${LAG_COUNT_CAP}$`, 'm'));
    const runtime = await api(app.baseUrl, 'GET', '/v1/runtime');
    expect(runtime.body.projections.length).toBeGreaterThan(0);
    for (const projection of runtime.body.projections) expect(projection.lag).toBe(LAG_COUNT_CAP);
    expect(eventsRead).toBe(0);
  });
});
