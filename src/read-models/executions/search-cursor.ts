import { ValidationError } from '../../common/errors/request-errors';

/** Opaque to clients: the position the next page starts below, versioned so it can change. */
export const encodeCursor = (position: number): string => Buffer.from(JSON.stringify({ v: 1, before: position })).toString('base64url');

export function decodeCursor(cursor: string): number {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (decoded?.v === 1 && Number.isSafeInteger(decoded.before) && decoded.before > 0) return decoded.before;
  } catch {
    // Falls through to the same answer as a well-formed but meaningless cursor.
  }
  throw new ValidationError('cursor is not a cursor this server issued');
}
