import type { StoredEvent } from '../event-store/event-store';
import { StoredRow } from '../event-store/stored-row';
import { deliveryBody } from '../webhooks/delivery/delivery-body';
import { feedEventJson, toFeedEvent } from './feed-event';

const metadata = { tenantId: 't', schemaVersion: 2, correlationId: 'e1', causationId: null } as StoredEvent['metadata'];
const data = { text: 'é "q" \\ \u2028', n: [1, 2.5, null] };
const row = (streamId: string) => new StoredRow('id-1', streamId, 2, 77, 'output.text.done', JSON.stringify(data), metadata, '2026-12-03T10:00:00.000Z');
const plain = (streamId: string): StoredEvent => ({
  id: 'id-1',
  streamId,
  revision: 2,
  position: 77,
  type: 'output.text.done',
  data,
  metadata,
  occurredAt: '2026-12-03T10:00:00.000Z',
});

describe('feedEventJson', () => {
  it.each(['execution-e1', 'conversation-c1'])('is the feed event as JSON.stringify gives it, for %s, from a row and from a plain event', (streamId) => {
    expect(feedEventJson(row(streamId))).toBe(JSON.stringify(toFeedEvent(plain(streamId))));
    expect(feedEventJson(plain(streamId))).toBe(JSON.stringify(toFeedEvent(plain(streamId))));
  });

  it('gives webhook deliveries the bytes they were signed over before', () => {
    const event = row('execution-e1');
    expect(deliveryBody(event)).toBe(JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: toFeedEvent(plain('execution-e1')) }));
  });
});
