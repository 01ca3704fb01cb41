import { ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('defaults to the embedded store on 127.0.0.1:3000', () => {
    expect(loadConfig({})).toMatchObject({
      host: '127.0.0.1',
      port: 3000,
      eventStore: 'sqlite',
      sqlitePath: './data/runledger.db',
      bodyLimitBytes: 1024 * 1024,
    });
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
      'EVENT_STORE must be one of sqlite, eventstoredb (got "mongo")',
      'PORT must be an integer from 0 to 65535 (got "eighty")',
      'SSE_KEEPALIVE_MS must be an integer from 10 to 15000 (got "20000")',
    ]);
  });

  it('needs a connection string for EventStoreDB', () => {
    expect(() => loadConfig({ EVENT_STORE: 'eventstoredb' })).toThrow(/EVENTSTOREDB_CONNECTION_STRING is required/);
    expect(loadConfig({ EVENT_STORE: 'eventstoredb', EVENTSTOREDB_CONNECTION_STRING: 'esdb://localhost:2113?tls=false' }))
      .toMatchObject({ eventStore: 'eventstoredb' });
  });
});
