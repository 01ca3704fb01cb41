import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Visible ASCII (no spaces, no control characters), at most 128 of them. */
const ACCEPTABLE = /^[\x21-\x7e]{1,128}$/;

/**
 * Fastify's `genReqId`: the caller's `X-Request-Id` when it is a sane one (so a request can be
 * followed across services), otherwise a fresh UUID. A value that is too long, empty, repeated or
 * holds anything but visible ASCII is replaced rather than trusted into every log line.
 */
export function requestIdOf(raw: IncomingMessage): string {
  const sent = raw.headers['x-request-id'];
  return typeof sent === 'string' && ACCEPTABLE.test(sent) ? sent : randomUUID();
}
