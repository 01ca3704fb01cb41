import { EventStoreDbEventStore } from './eventstoredb-event-store';

/** No server needed: nothing listens on port 1, so these exercise the real client's failure path. */
describe('EventStoreDbEventStore.connect', () => {
  it('rejects with the address (credentials redacted) and the cause when nothing answers', async () => {
    const failure = EventStoreDbEventStore.connect('esdb://admin:changeit@127.0.0.1:1?tls=false', { timeoutMs: 3_000 });
    await expect(failure).rejects.toThrow(/^cannot reach EventStoreDB at esdb:\/\/\*\*\*@127\.0\.0\.1:1\?tls=false: .*UNAVAILABLE/);
    await expect(failure).rejects.not.toThrow(/changeit/);
  });

  it('accepts the kurrentdb:// spelling of the same connection string', async () => {
    await expect(EventStoreDbEventStore.connect('kurrentdb://127.0.0.1:1?tls=false', { timeoutMs: 3_000 })).rejects.toThrow(/^cannot reach EventStoreDB/);
  });

  it('rejects a malformed connection string before connecting', async () => {
    await expect(EventStoreDbEventStore.connect('http://localhost:2113')).rejects.toThrow(/^invalid EventStoreDB connection string/);
  });
});
