import type { AppendResult, EncodedEvent, ExpectedRevision } from './event-store';

/**
 * The messages between writer-client.ts on the event loop and a writer thread that owns a store's
 * write connection and its group commit (sqlite/writer-thread.ts, postgres/writer-thread.ts).
 */
export interface AppendRequest {
  id: number;
  streamId: string;
  expected: ExpectedRevision;
  rows: EncodedEvent[];
}

/** From the event loop to the writer thread; one port, so they arrive in the order sent. */
export type WriterRequest =
  /** Appends asked for together (writer-client.ts), in the order they were asked for. */
  | { kind: 'appends'; appends: AppendRequest[] }
  /** Fault tests only (SQLite): a pragma on the write connection (`max_page_count`, `query_only`). */
  | { kind: 'pragma'; sql: string }
  /** Fault tests only: end the thread right after the next commit, before acknowledging it. */
  | { kind: 'crash-after-commit' }
  /** Commit everything queued, close the connection, answer `closed`. */
  | { kind: 'close' };

/** Why an append failed, as plain data (errors lose their class crossing threads). */
export type WriterFailure =
  | { kind: 'conflict'; streamId: string; expected: ExpectedRevision; actual: number | null | undefined }
  | { kind: 'unavailable'; message: string; code: string | undefined; causeMessage: string }
  | { kind: 'error'; message: string; code: string | undefined };

export type WriterOutcome = { id: number; result: AppendResult } | { id: number; failure: WriterFailure };

/** From the writer thread: the outcomes of one commit (with its size, for metrics), or the end. */
export type WriterResponse =
  { kind: 'ready' } | { kind: 'settled'; outcomes: WriterOutcome[]; commits: { appends: number; events: number }[] } | { kind: 'closed' };
