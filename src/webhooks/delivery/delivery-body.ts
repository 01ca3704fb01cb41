import { StoredEvent } from '../../event-store/event-store';
import { toFeedEvent } from '../../feed/feed-event';

/** The request body (docs/webhooks.md#delivery): the event's type and time, and the event as the audit feed shows it. */
export const deliveryBody = (event: StoredEvent): string => JSON.stringify({ type: event.type, timestamp: event.occurredAt, data: toFeedEvent(event) });
