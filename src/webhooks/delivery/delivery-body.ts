import { StoredEvent } from '../../event-store/event-store';
import { feedEventJson } from '../../feed/feed-event';

/** The request body (docs/webhooks.md#delivery): the event's type and time, and the event as the audit feed shows it. */
export const deliveryBody = (event: StoredEvent): string =>
  `{"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.occurredAt)},"data":${feedEventJson(event)}}`;
