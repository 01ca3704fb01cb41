import type { ProcessorBatch } from '../event-store/processor';
import type { ProjectionSetName } from './projection-sets';

/** What the projector thread is started with. */
export interface ProjectorThreadData {
  file: string;
  projections: ProjectionSetName;
}

export type Positions = { name: string; position: number }[];

/** From the event loop to the projector thread; one port, so they arrive in the order sent. */
export type ProjectorRequest =
  | ({ kind: 'apply'; id: number } & ProcessorBatch)
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
