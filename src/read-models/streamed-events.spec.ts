import type { StoredEvent } from '../event-store/event-store';
import { withoutSupersededStreamed } from './streamed-events';

const event = (streamId: string, revision: number, type: string): StoredEvent => ({
  id: `${streamId}/${revision}`,
  streamId,
  revision,
  position: 0,
  type,
  data: {},
  metadata: { tenantId: 't', schemaVersion: 2, correlationId: null, causationId: null },
  occurredAt: '2026-12-06T00:00:00.000Z',
});
const ids = (events: StoredEvent[]) => events.map((e) => e.id);

describe('withoutSupersededStreamed', () => {
  it('keeps of each run of streamed events only the one no later event of its stream follows', () => {
    const batch = [
      event('execution-a', 3, 'output.text.delta'),
      event('execution-b', 7, 'output.text.delta'),
      event('execution-a', 4, 'provider.event'),
      event('execution-a', 5, 'action.required'),
      event('execution-b', 8, 'output.text.delta'),
      event('execution-a', 6, 'output.text.delta'),
      event('execution-a', 7, 'output.text.delta'),
      event('conversation-c', 0, 'conversation.created'),
    ];
    expect(ids(withoutSupersededStreamed(batch))).toEqual(['execution-a/5', 'execution-b/8', 'execution-a/7', 'conversation-c/0']);
  });

  it('never drops an event of another type, nor the last event of a stream', () => {
    const batch = [event('execution-a', 0, 'run.queued'), event('execution-a', 1, 'run.started'), event('execution-a', 2, 'output.text.delta')];
    expect(withoutSupersededStreamed(batch)).toBe(batch);
    expect(withoutSupersededStreamed([])).toEqual([]);
  });
});
