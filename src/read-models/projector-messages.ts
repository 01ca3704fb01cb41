import type { StoredEvent } from '../event-store/event-store';
import type { ProcessorBatch } from '../event-store/processor';
import { StoredRow, dataJsonOf, metadataJsonOf } from '../event-store/stored-row';
import type { ProjectionSetName } from './projection-sets';

/** What the projector thread is started with. */
export interface ProjectorThreadData {
  file: string;
  projections: ProjectionSetName;
}

export type Positions = { name: string; position: number }[];

/**
 * An event on its way to the projector thread: its data as JSON text, which the thread parses, so
 * the event loop copies a string instead of walking (structured clone) a large config or input.
 */
export type WireEvent = Omit<StoredEvent, 'data' | 'metadata'> & { dataJson: string; metadataJson: string; schemaVersion: number };

export const toWire = (event: StoredEvent): WireEvent => ({
  id: event.id,
  streamId: event.streamId,
  revision: event.revision,
  position: event.position,
  type: event.type,
  dataJson: dataJsonOf(event),
  metadataJson: metadataJsonOf(event),
  occurredAt: event.occurredAt,
  schemaVersion: StoredRow.schemaVersionOf(event),
});

export const fromWire = (event: WireEvent): StoredEvent =>
  new StoredRow(
    event.id,
    event.streamId,
    event.revision,
    event.position,
    event.type,
    event.dataJson,
    event.metadataJson,
    event.occurredAt,
    event.schemaVersion,
  );

/** From the event loop to the projector thread; one port, so they arrive in the order sent. */
export type ProjectorRequest =
  | ({ kind: 'apply'; id: number; events: WireEvent[] } & Pick<ProcessorBatch, 'position'>)
  /** Fault tests only: a pragma on the write connection (`query_only`). */
  | { kind: 'pragma'; sql: string }
  /** Fault tests only: end the thread right after the next transaction commits, before acknowledging it. */
  | { kind: 'crash-after-commit' }
  /** Close the connection and end. */
  | { kind: 'close' };

/** From the projector thread. Errors lose their class crossing threads, so a refusal says so itself. */
export type ProjectorResponse =
  | { kind: 'ready'; positions: Positions; rebuilt: string[] }
  | { kind: 'applied'; id: number; positions: Positions }
  | { kind: 'refused'; id: number; message: string }
  | { kind: 'failed'; id: number; message: string; stack: string | undefined };
