/** How the process ends; `run` and `tail` say how the execution ended (docs in clients/typescript/README.md). */
export const EXIT = {
  completed: 0,
  failed: 1,
  cancelled: 2,
  /** The server refused the command, or could not be reached. */
  error: 3,
  usage: 64,
  /** Ctrl-C: the execution was cancelled on the way out. */
  interrupted: 130,
} as const;

export const exitOf = (status: string): number => (status === 'completed' ? EXIT.completed : status === 'cancelled' ? EXIT.cancelled : EXIT.failed);

/** A wrong command line: its message is printed with the usage, and the process exits 64. */
export class UsageError extends Error {}
