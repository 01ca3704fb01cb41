import { StoreUnavailableError } from '../event-store';

/**
 * SQLSTATEs that say "the server cannot take this right now" rather than "this request is wrong":
 * a lost or refused connection (class 08), the server shutting down or starting (57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now), insufficient resources (class 53:
 * disk full, out of memory, too many connections), system and I/O errors (class 58), a statement
 * timeout or cancel (57014), a lock that could not be had (55P03), a server that became read-only
 * after a failover (25006), and serialization failures and deadlocks (40001, 40P01) once the
 * adapter's own retries of them are spent.
 */
const UNAVAILABLE_CLASSES = ['08', '53', '58'];
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '57014', '55P03', '25006', '40001', '40P01']);

/** Socket-level failures node-postgres passes on as they are. */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  // A Unix-socket path that does not exist (yet): the server is not running.
  'ENOENT',
]);

/** What node-postgres itself says when a connection dies or never comes (these carry no code). */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^Client has encountered a connection error and is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Connection ended unexpectedly/,
  /^terminating connection/,
];

export const UNIQUE_VIOLATION = '23505';
/** Worth running the whole transaction again: the unique guard fired, or the server gave up on a race. */
export const RETRY_TRANSACTION = new Set([UNIQUE_VIOLATION, '40001', '40P01']);

/** The SQLSTATE of an error the server sent (they carry a severity; socket errors like EPIPE do not). */
export function sqlState(error: unknown): string | undefined {
  const { code, severity } = (error ?? {}) as { code?: unknown; severity?: unknown };
  return typeof code === 'string' && typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

// Duck-typed, not `instanceof Error`: errors made by Node's own modules (sockets, DNS) come from
// another realm wherever code runs in a VM context, as under jest.
interface ErrorLike {
  message: string;
  code?: unknown;
  errors?: unknown;
}

const isErrorLike = (error: unknown): error is ErrorLike =>
  typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string';

export function isUnavailable(error: unknown): boolean {
  if (!isErrorLike(error)) return false;
  const state = sqlState(error);
  if (state) return UNAVAILABLE_STATES.has(state) || UNAVAILABLE_CLASSES.includes(state.slice(0, 2));
  if (typeof error.code === 'string' && UNAVAILABLE_ERRNOS.has(error.code)) return true;
  // AggregateError: a host name resolving to several addresses, none of which answered.
  if (Array.isArray(error.errors)) return error.errors.length > 0 && error.errors.every(isUnavailable);
  return UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message));
}

/** Whether a connection that raised this may be reused: only when the server answered with a SQLSTATE it can recover from. */
export function connectionIsBroken(error: unknown): boolean {
  const state = sqlState(error);
  return state === undefined || ['08', '57'].includes(state.slice(0, 2));
}

/** The port's typed error for what PostgreSQL or the driver report as unavailability; anything else unchanged. */
export function asStoreUnavailable(error: unknown, what: string): unknown {
  if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
  const { code, message } = error as ErrorLike;
  const detail = typeof code === 'string' ? code : (error as object).constructor.name;
  return new StoreUnavailableError(`PostgreSQL cannot serve ${what} right now (${detail}): ${message}`, error);
}
