import { validationError } from './api-error';

const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO-8601 instant from a query, normalised to the form event times are stored in, so string order is time order. */
export function isoInstantParam(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  const time = typeof value === 'string' && ISO.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) throw validationError(`${name} must be an ISO-8601 date-time such as 2026-09-02T10:00:00.000Z`);
  return new Date(time).toISOString();
}
