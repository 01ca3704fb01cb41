import { ValidationError } from '../../common/errors/request-errors';
import { UsageGrouping } from '../../read-models/usage/usage.query';

/** Opaque to clients: the grouping and the last group key of the page before, versioned so it can change. */
export const encodeUsageCursor = (groupBy: UsageGrouping, key: string | null): string =>
  Buffer.from(JSON.stringify({ v: 1, g: groupBy, k: key })).toString('base64url');

/** The key the next page starts after; a cursor of another grouping is refused like a foreign one. */
export function decodeUsageCursor(cursor: string, groupBy: UsageGrouping): { key: string | null } {
  try {
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (decoded?.v === 1 && decoded.g === groupBy && (typeof decoded.k === 'string' || decoded.k === null)) return { key: decoded.k };
  } catch {
    // Falls through to the same answer as a well-formed but meaningless cursor.
  }
  throw new ValidationError(`cursor is not a cursor this server issued for groupBy=${groupBy}`);
}
