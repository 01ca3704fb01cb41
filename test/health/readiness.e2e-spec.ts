import { EVENT_STORE } from '../../src/event-store/event-store';
import { ReadinessChecks } from '../../src/health/readiness-checks';
import { ShutdownState } from '../../src/health/shutdown-state';
import { api, startApp, useApp, onPostgres } from '../support/app-harness';
import { expectError } from '../support/error-envelope';
import { sqliteOutage } from '../support/store-faults';

/** Liveness is the process; readiness is the store, the sweep, the checks, shutdown. */
const itOnSqlite = onPostgres ? it.skip : it;

describe('health probes', () => {
  const app = useApp();

  it('answers liveness with 200', async () => {
    const res = await api(app.baseUrl, 'GET', '/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', info: { process: { status: 'up' } }, error: {} });
  });

  it('is ready when the store reads and writes, the restart sweep is done and nothing stops', async () => {
    const res = await api(app.baseUrl, 'GET', '/health/ready');
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('ok');
    expect(res.body.error).toEqual({});
    for (const check of ['eventStore', 'storeWrites', 'restartSweep', 'shutdown']) {
      expect(res.body.details[check]).toMatchObject({ status: 'up' });
    }
  });

  // The outage is SQLite's own (a read-only file); the PostgreSQL outage suite is test/event-store/postgres-faults.
  itOnSqlite('is not ready while the store refuses writes, and ready again after a write succeeds', async () => {
    const outage = sqliteOutage(app.app.get(EVENT_STORE), 'read-only');
    outage.begin();
    try {
      // StoreHealth learns of the outage from a refused append.
      expectError(await api(app.baseUrl, 'POST', '/v1/conversations', {}), 503, 'SERVICE_UNAVAILABLE');
      const res = await api(app.baseUrl, 'GET', '/health/ready');
      expectError(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(res.body.error.details.failed).toEqual(['storeWrites']);
      // Reads still work, and the answer says why without the store's own message.
      expect(res.body.error.details.checks.eventStore.status).toBe('up');
      expect(res.body.error.details.checks.storeWrites).toMatchObject({ status: 'down', message: 'the event store refuses writes' });
      expect(res.text).not.toMatch(/SQLITE|readonly|\.db/i);
      expect((await api(app.baseUrl, 'GET', '/health/live')).status).toBe(200);
    } finally {
      outage.end();
    }
    expect((await api(app.baseUrl, 'POST', '/v1/conversations', {})).status).toBe(201);
    expect((await api(app.baseUrl, 'GET', '/health/ready')).status).toBe(200);
  });

  itOnSqlite('becomes ready after an outage with no request writing anything (an instance out of rotation gets none)', async () => {
    const outage = sqliteOutage(app.app.get(EVENT_STORE), 'read-only');
    outage.begin();
    try {
      expectError(await api(app.baseUrl, 'POST', '/v1/conversations', {}), 503, 'SERVICE_UNAVAILABLE');
      // Readiness tries a write of its own now and then; refused, it stays down.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const res = await api(app.baseUrl, 'GET', '/health/ready');
      expect(res.status).toBe(503);
      expect(res.body.error.details.failed).toEqual(['storeWrites']);
    } finally {
      outage.end();
    }
    const deadline = Date.now() + 5000;
    let status = 0;
    while (Date.now() < deadline && (status = (await api(app.baseUrl, 'GET', '/health/ready')).status) !== 200) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });

  it('includes checks other modules register, and counts one that throws as failed', async () => {
    let verdict: () => { ready: boolean; message?: string } = () => ({ ready: false, message: 'projections are 5000 events behind' });
    app.app.get(ReadinessChecks).add('testLag', () => verdict());
    let res = await api(app.baseUrl, 'GET', '/health/ready');
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.error.details.failed).toEqual(['testLag']);
    expect(res.body.error.details.checks.testLag).toEqual({ status: 'down', message: 'projections are 5000 events behind' });

    verdict = () => {
      throw new Error('boom at /var/lib/secret');
    };
    res = await api(app.baseUrl, 'GET', '/health/ready');
    expect(res.body.error.details.checks.testLag).toEqual({ status: 'down', message: 'the check failed' });

    verdict = () => ({ ready: true });
    expect((await api(app.baseUrl, 'GET', '/health/ready')).status).toBe(200);
  });
});

describe('readiness during shutdown', () => {
  const app = useApp();

  it('turns not-ready as soon as shutdown begins (what the SIGTERM handler calls first), while live stays 200', async () => {
    app.app.get(ShutdownState).begin();
    const res = await api(app.baseUrl, 'GET', '/health/ready');
    expectError(res, 503, 'SERVICE_UNAVAILABLE');
    expect(res.body.error.details.failed).toEqual(['shutdown']);
    expect(res.body.error.message).toBe('not ready: shutdown');
    expect((await api(app.baseUrl, 'GET', '/health/live')).status).toBe(200);
  });

  it("flips on Nest's shutdown hook too, for any other way the app closes", async () => {
    const other = await startApp();
    const state = other.app.get(ShutdownState);
    expect(state.stopping).toBe(false);
    await other.close();
    expect(state.stopping).toBe(true);
  });
});

describe('health probes with auth on', () => {
  const app = useApp({ env: { API_KEYS: 'acme:key-1-0123456789abcdef' } });

  it.each(['/health/live', '/health/ready'])('%s answers without a key, and with a wrong one', async (path) => {
    expect((await api(app.baseUrl, 'GET', path)).status).toBe(200);
    expect((await api(app.baseUrl, 'GET', path, undefined, { authorization: 'Bearer wrong' })).status).toBe(200);
  });

  it('still guards the API', async () => {
    expectError(await api(app.baseUrl, 'GET', '/v1/runtime'), 401, 'UNAUTHENTICATED');
    expect((await api(app.baseUrl, 'GET', '/v1/runtime', undefined, { authorization: 'Bearer key-1-0123456789abcdef' })).status).toBe(200);
  });
});
