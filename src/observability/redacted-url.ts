/** What stands in for a redacted value, as in the logs' redacted headers (logger.ts). */
export const REDACTED = '[redacted]';

/** Names of the API's own query parameters are this short; a key or token is longer (20+). */
const MAX_KEPT_NAME = 16;

/**
 * A query string (without its `?`) fit for logs and spans: every value redacted, and every
 * name longer than any the API uses too, since a caller who puts a key in the URL by mistake
 * (`?token=…`, or the bare key) must not find it in the logs or the traces afterwards.
 */
export function redactedQuery(query: string): string {
  return query
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=');
      const name = equals === -1 ? part : part.slice(0, equals);
      const shown = name.length <= MAX_KEPT_NAME ? name : REDACTED;
      return equals === -1 ? shown : `${shown}=${REDACTED}`;
    })
    .join('&');
}

/** A request URL with its query string redacted (see `redactedQuery`); the path stays as sent. */
export function redactedUrl(url: string): string {
  const mark = url.indexOf('?');
  return mark === -1 ? url : `${url.slice(0, mark)}?${redactedQuery(url.slice(mark + 1))}`;
}
