import type { EventMetadata, StoredEvent } from './event-store';

/** How `data` is defined on each row: one shared accessor, so every row keeps the same shape. */
const DATA: PropertyDescriptor = { enumerable: true, configurable: true };

/**
 * A stored event built from its row (a read, or an append this process just committed) that keeps
 * its data's JSON text as stored, and parses it only when someone reads `data`. Writing the event
 * out again (an SSE frame, a page's byte bound, the message to the projector thread) splices that
 * text instead of parsing and serializing it once more: for a `run.queued` carrying a large config
 * or input, that was most of what a start's commit and an SSE attach cost the event loop.
 *
 * `data` is an own enumerable property (an accessor), so a copy (`{ ...event }`), JSON and
 * structured clone see a plain event. The text is a private field, so a copy with other data (an
 * upcast) never carries text that no longer matches it.
 */
export class StoredRow implements StoredEvent {
  // Assigned in the order of the plain objects the adapters built before: JSON.stringify keeps it.
  declare id: string;
  declare streamId: string;
  declare revision: number;
  declare position: number;
  declare type: string;
  declare readonly data: Record<string, unknown>;
  declare metadata: EventMetadata;
  declare occurredAt: string;
  readonly #dataJson: string;
  #data: Record<string, unknown> | undefined = undefined;

  static {
    DATA.get = function (this: StoredRow) {
      return (this.#data ??= JSON.parse(this.#dataJson) as Record<string, unknown>);
    };
  }

  constructor(id: string, streamId: string, revision: number, position: number, type: string, dataJson: string, metadata: EventMetadata, occurredAt: string) {
    this.#dataJson = dataJson;
    this.id = id;
    this.streamId = streamId;
    this.revision = revision;
    this.position = position;
    this.type = type;
    Object.defineProperty(this, 'data', DATA);
    this.metadata = metadata;
    this.occurredAt = occurredAt;
  }

  static textOf(event: StoredEvent): string | undefined {
    return event instanceof StoredRow ? event.#dataJson : undefined;
  }
}

/** `event.data` as JSON text: the stored text when the event is a row as read, else serialized now. */
export const dataJsonOf = (event: StoredEvent): string => StoredRow.textOf(event) ?? JSON.stringify(event.data);
