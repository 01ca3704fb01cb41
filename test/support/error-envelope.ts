import { JsonResponse } from './app-harness';

/**
 * Asserts the error envelope of docs/api.md#errors: exactly `{ error: { code, message[, details] } }`,
 * a JSON body with the given status and code, and nothing that looks like a stack trace.
 */
export function expectError(res: JsonResponse, status: number, code: string): void {
  const seen = `${res.status} ${res.text}`;
  expect({ status: res.status, seen }).toEqual({ status, seen });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  const keys = Object.keys(res.body.error);
  expect(keys.slice(0, 2)).toEqual(['code', 'message']);
  expect(keys.slice(2).every((k) => k === 'details')).toBe(true);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.message.length).toBeGreaterThan(0);
  if ('details' in res.body.error) expect(typeof res.body.error.details).toBe('object');
  expect(res.text).not.toMatch(/\n\s+at |\.ts:\d+|\.js:\d+|stack/i);
}

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
