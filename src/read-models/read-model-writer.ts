import { ProcessorBatch } from '../event-store/processor';

/**
 * What applies the projector's batches to a read-model file and knows the checkpoints it stored:
 * the transaction itself on the event loop (read-model-transaction.ts), or a client of the
 * projector thread that runs it (projector-client.ts).
 */
export interface ReadModelWriter {
  /** The projections with the positions they have applied. */
  readonly positions: { name: string; position: number }[];
  /** The projections that started again from the beginning when the file was opened. */
  readonly rebuilt: readonly string[];
  /**
   * Applies the batch to every projection with its checkpoint, atomically; rejects with
   * `StoreUnavailableError` when the file refuses it (nothing of it is kept) and with any other
   * error when a projection fails on an event (a bug).
   */
  apply(batch: ProcessorBatch): void | Promise<void>;
  /** Fault tests only: a pragma on the connection that writes (`query_only`). */
  pragma(sql: string): void;
}

/** Every projection has applied everything up to here. */
export const lowestPosition = (writer: ReadModelWriter) => Math.min(...writer.positions.map((p) => p.position));
