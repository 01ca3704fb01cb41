import { ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('defaults to the embedded store on 127.0.0.1:3000', () => {
    expect(loadConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      eventStore: 'sqlite',
      sqlitePath: './data/runledger.db',
      sqliteWriter: 'thread',
      postgresWriter: 'thread',
      readModelWriter: 'thread',
      bodyLimitBytes: 1024 * 1024,
    });
  });

  it('runs SQLite commits on a writer thread unless SQLITE_WRITER=inline', () => {
    expect(loadConfig({ SQLITE_WRITER: 'inline' }).sqliteWriter).toBe('inline');
    expect(() => loadConfig({ SQLITE_WRITER: 'both' })).toThrow('SQLITE_WRITER must be one of thread, inline (got "both")');
  });

  it('runs PostgreSQL appends on a writer thread unless POSTGRES_WRITER=inline', () => {
    expect(loadConfig({ POSTGRES_WRITER: 'inline' }).postgresWriter).toBe('inline');
    expect(() => loadConfig({ POSTGRES_WRITER: 'pool' })).toThrow('POSTGRES_WRITER must be one of thread, inline (got "pool")');
  });

  it('runs the projections on the projector thread unless READ_MODEL_WRITER=inline', () => {
    expect(loadConfig({ READ_MODEL_WRITER: 'inline' }).readModelWriter).toBe('inline');
    expect(() => loadConfig({ READ_MODEL_WRITER: 'worker' })).toThrow('READ_MODEL_WRITER must be one of thread, inline (got "worker")');
  });

  it('reports every bad value at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', EVENT_STORE: 'mongo', SSE_KEEPALIVE_MS: '20000' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'EVENT_STORE must be one of sqlite, eventstoredb, postgres (got "mongo")',
      'PORT must be an integer from 0 to 65535 (got "eighty")',
      'SSE_KEEPALIVE_MS must be an integer from 10 to 15000 (got "20000")',
    ]);
  });

  it('needs a connection string for EventStoreDB', () => {
    expect(() => loadConfig({ EVENT_STORE: 'eventstoredb' })).toThrow(/EVENTSTOREDB_CONNECTION_STRING is required/);
    expect(loadConfig({ EVENT_STORE: 'eventstoredb', EVENTSTOREDB_CONNECTION_STRING: 'esdb://localhost:2113?tls=false' })).toMatchObject({
      eventStore: 'eventstoredb',
    });
  });

  it('needs a postgres:// DATABASE_URL for PostgreSQL', () => {
    expect(() => loadConfig({ EVENT_STORE: 'postgres' })).toThrow(/DATABASE_URL is required/);
    expect(() => loadConfig({ EVENT_STORE: 'postgres', DATABASE_URL: 'mysql://localhost/db' })).toThrow(/must start with postgres:\/\//);
    expect(loadConfig({ EVENT_STORE: 'postgres', DATABASE_URL: 'postgres://runledger@localhost:5432/runledger' })).toMatchObject({
      eventStore: 'postgres',
      databaseUrl: 'postgres://runledger@localhost:5432/runledger',
      readModelPath: './data/read-models.db',
    });
  });
});

describe('EXECUTION_TIMEOUT_MS (docs/api.md#deadlines)', () => {
  it('unset is no deadline; set, it is the timeoutMs of runs started without one', () => {
    expect(loadConfig({}).executionTimeoutMs).toBeNull();
    expect(loadConfig({ EXECUTION_TIMEOUT_MS: '604800000' }).executionTimeoutMs).toBe(604_800_000);
  });

  it('is an integer from 1 to 604800000', () => {
    for (const raw of ['0', '604800001', '1.5', 'soon']) {
      expect(() => loadConfig({ EXECUTION_TIMEOUT_MS: raw })).toThrow(`EXECUTION_TIMEOUT_MS must be an integer from 1 to 604800000 (got "${raw}")`);
    }
  });
});

describe('limits, CORS (docs/operations.md#limits-security-headers-and-cors)', () => {
  it('defaults: no rate limit, 100 event streams per tenant, CORS off', () => {
    expect(loadConfig({})).toMatchObject({ rateLimitPerMinute: null, sseMaxStreamsPerTenant: 100, corsOrigins: null });
  });

  it('reads RATE_LIMIT_PER_MINUTE, SSE_MAX_STREAMS_PER_TENANT and CORS_ORIGINS', () => {
    expect(
      loadConfig({ RATE_LIMIT_PER_MINUTE: '600', SSE_MAX_STREAMS_PER_TENANT: '5', CORS_ORIGINS: ' https://app.example.com , http://localhost:5173' }),
    ).toMatchObject({ rateLimitPerMinute: 600, sseMaxStreamsPerTenant: 5, corsOrigins: ['https://app.example.com', 'http://localhost:5173'] });
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toEqual(['*']);
  });

  it('reports every bad limit or origin in one ConfigError', () => {
    let error: unknown;
    try {
      loadConfig({
        RATE_LIMIT_PER_MINUTE: '0',
        SSE_MAX_STREAMS_PER_TENANT: 'many',
        CORS_ORIGINS: 'https://ok.example,https://app.example.com/,ftp://x.example,,nope',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toEqual([
      'RATE_LIMIT_PER_MINUTE must be an integer from 1 to 1000000 (got "0")',
      'SSE_MAX_STREAMS_PER_TENANT must be an integer from 1 to 100000 (got "many")',
      expect.stringMatching(/^CORS_ORIGINS entry "https:\/\/app.example.com\/" must be/),
      expect.stringMatching(/^CORS_ORIGINS entry "ftp:\/\/x.example" must be/),
      expect.stringMatching(/^CORS_ORIGINS entry "" must be/),
      expect.stringMatching(/^CORS_ORIGINS entry "nope" must be/),
    ]);
  });

  it('defaults: failed authentications limited to 20 a minute, no proxy trusted, scripted offered', () => {
    expect(loadConfig({})).toMatchObject({ allowUnauthenticated: false, authFailuresPerMinute: 20, trustProxy: false, scriptedProvider: 'enabled' });
  });

  it("reads TRUST_PROXY as Fastify's trustProxy: true, a hop count, or addresses and CIDRs", () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 192.168.1.5,::1' }).trustProxy).toEqual(['10.0.0.0/8', '192.168.1.5', '::1']);
    for (const bad of ['0', 'yes', '10.0.0.0/33', '10.0.0.1,,']) {
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(
        `TRUST_PROXY must be true, false, a hop count from 1 to 100, or addresses/CIDRs separated by commas (got "${bad}")`,
      );
    }
  });

  it('refuses a non-loopback HOST without authentication unless ALLOW_UNAUTHENTICATED=true', () => {
    expect(() => loadConfig({ HOST: '0.0.0.0' })).toThrow(
      /HOST=0\.0\.0\.0 is reachable from other machines but authentication is off: .*ALLOW_UNAUTHENTICATED=true/,
    );
    expect(loadConfig({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'true' }).host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0', API_KEYS: 'acme:0123456789abcdefghij' }).host).toBe('0.0.0.0');
    for (const host of ['127.0.0.1', '127.0.1.1', '::1', 'localhost']) expect(loadConfig({ HOST: host }).host).toBe(host);
    expect(() => loadConfig({ HOST: '0.0.0.0', ALLOW_UNAUTHENTICATED: 'yes' })).toThrow(/ALLOW_UNAUTHENTICATED must be one of true, false/);
  });
});

describe('connection and body bounds (docs/configuration.md)', () => {
  it('defaults: 30 s to receive a request, 10000 connections, 64 levels of JSON nesting', () => {
    expect(loadConfig({})).toMatchObject({ requestTimeoutMs: 30_000, maxConnections: 10_000, maxJsonDepth: 64 });
  });

  it('reads REQUEST_TIMEOUT_MS, MAX_CONNECTIONS and MAX_JSON_DEPTH, and reports each bad one', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '500', MAX_CONNECTIONS: '20', MAX_JSON_DEPTH: '8' })).toMatchObject({
      requestTimeoutMs: 500,
      maxConnections: 20,
      maxJsonDepth: 8,
    });
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '0', MAX_CONNECTIONS: '0', MAX_JSON_DEPTH: '7' })).toThrow(
      expect.objectContaining({
        problems: [
          'REQUEST_TIMEOUT_MS must be an integer from 100 to 3600000 (got "0")',
          'MAX_CONNECTIONS must be an integer from 1 to 1000000 (got "0")',
          'MAX_JSON_DEPTH must be an integer from 8 to 1000 (got "7")',
        ],
      }),
    );
  });
});
