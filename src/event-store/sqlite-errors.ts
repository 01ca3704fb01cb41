import { StoreUnavailableError } from './event-store';

/**
 * SQLite result codes that say "the file cannot take this right now" rather than "this request is
 * wrong": a full disk or page limit, an I/O error, a lock held too long, a file that cannot be
 * opened or written. Extended codes (SQLITE_IOERR_WRITE, …) share their primary code's prefix.
 */
const UNAVAILABLE = ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_NOMEM', 'SQLITE_PROTOCOL'];

const isUnavailable = (code: unknown): boolean => typeof code === 'string' && UNAVAILABLE.some((prefix) => code === prefix || code.startsWith(`${prefix}_`));

/** The port's typed error for what SQLite reports as unavailability; anything else unchanged. */
export function asStoreUnavailable(error: unknown, what = 'the SQLite event store'): unknown {
  const code = (error as { code?: unknown })?.code;
  if (!isUnavailable(code)) return error;
  return new StoreUnavailableError(`${what} cannot take the request (${String(code)}): ${(error as Error).message}`, error);
}
