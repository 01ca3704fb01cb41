import type { EventMetadata, StoredEvent } from './event-store';

/** How `data` and `metadata` are defined on each row: shared accessors, so every row keeps the same shape. */
const DATA: PropertyDescriptor = { enumerable: true, configurable: true };
const METADATA: PropertyDescriptor = { enumerable: true, configurable: true };

/**
 * A stored event built from its row (a read, or an append this process just committed) that keeps
 * its data's JSON text as stored, and parses it only when someone reads `data`. Writing the event
 * out again (an SSE frame, a page's byte bound, the message to the projector thread) splices that
 * text instead of parsing and serializing it once more: for a `run.queued` carrying a large config
 * or input, that was most of what a start's commit and an SSE attach cost the event loop.
 *
 * Its metadata is kept as text too, given so, and parsed when first read: a streamed delta's is
 * never read on its way to an SSE client or the projector thread, and a parsed copy (an object and
 * five strings) was most of what each event held in the process's recent-event memory. Upcasting
 * needs only its schema version, which comes from the row's own column (`schemaVersionOf`).
 *
 * `data` and `metadata` are own enumerable properties (accessors), so a copy (`{ ...event }`), JSON
 * and structured clone see a plain event. The texts are private fields, so a copy with other data
 * (an upcast) never carries text that no longer matches it.
 */
export class StoredRow implements StoredEvent {
  // Assigned in the order of the plain objects the adapters built before: JSON.stringify keeps it.
  declare id: string;
  declare streamId: string;
  declare revision: number;
  declare position: number;
  declare type: string;
  declare readonly data: Record<string, unknown>;
  declare readonly metadata: EventMetadata;
  declare occurredAt: string;
  readonly #dataJson: string;
  #data: Record<string, unknown> | undefined = undefined;
  readonly #metadataJson: string | undefined;
  #metadata: EventMetadata | undefined = undefined;
  readonly #schemaVersion: number | undefined;

  static {
    DATA.get = function (this: StoredRow) {
      return (this.#data ??= JSON.parse(this.#dataJson) as Record<string, unknown>);
    };
    METADATA.get = function (this: StoredRow) {
      return (this.#metadata ??= JSON.parse(this.#metadataJson as string) as EventMetadata);
    };
  }

  /** `metadata` as an object, or as its stored JSON text with the row's `schemaVersion` column. */
  constructor(
    id: string,
    streamId: string,
    revision: number,
    position: number,
    type: string,
    dataJson: string,
    metadata: EventMetadata | string,
    occurredAt: string,
    schemaVersion?: number,
  ) {
    this.#dataJson = dataJson;
    if (typeof metadata === 'string') {
      this.#metadataJson = metadata;
      this.#schemaVersion = schemaVersion;
    } else {
      this.#metadata = metadata;
      this.#schemaVersion = metadata.schemaVersion;
    }
    this.id = id;
    this.streamId = streamId;
    this.revision = revision;
    this.position = position;
    this.type = type;
    Object.defineProperty(this, 'data', DATA);
    Object.defineProperty(this, 'metadata', METADATA);
    this.occurredAt = occurredAt;
  }

  static textOf(event: StoredEvent): string | undefined {
    return event instanceof StoredRow ? event.#dataJson : undefined;
  }

  static metadataTextOf(event: StoredEvent): string | undefined {
    return event instanceof StoredRow && event.#metadata === undefined ? event.#metadataJson : undefined;
  }

  /** `event.metadata.schemaVersion`, without parsing a row's metadata when its column gave it. */
  static schemaVersionOf(event: StoredEvent): number {
    return (event instanceof StoredRow ? event.#schemaVersion : undefined) ?? event.metadata.schemaVersion;
  }
}

/** `event.data` as JSON text: the stored text when the event is a row as read, else serialized now. */
export const dataJsonOf = (event: StoredEvent): string => StoredRow.textOf(event) ?? JSON.stringify(event.data);

/** `event.metadata` as JSON text: the stored text while a row has not parsed it, else serialized now. */
export const metadataJsonOf = (event: StoredEvent): string => StoredRow.metadataTextOf(event) ?? JSON.stringify(event.metadata);
