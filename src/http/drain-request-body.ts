import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';

export interface DrainBounds {
  maxBytes: number;
  maxMs: number;
}

/** Enough for a client that overshot the body limit a little, or two limits' worth when that is more. */
export const drainBounds = (bodyLimitBytes: number): DrainBounds => ({
  maxBytes: Math.max(4 * 1024 * 1024, 2 * bodyLimitBytes),
  maxMs: 5000,
});

const bodyStillArriving = (req: IncomingMessage) =>
  !req.complete && !req.destroyed && (req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0');

/**
 * Reads and discards what is left of a request body the server has already answered (401, 413,
 * 415, 429, …). Closing a socket with unread data makes the kernel send a reset, which can destroy
 * the answer before the client reads it (EPIPE instead of 413). Answers false when a bound was
 * reached first: the caller then closes the connection, as a client still sending is misbehaving.
 */
export function drainRequestBody(req: IncomingMessage, bounds: DrainBounds): Promise<boolean> {
  if (!bodyStillArriving(req)) return Promise.resolve(true);
  return new Promise((resolve) => {
    let received = 0;
    const settle = (drained: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      resolve(drained);
    };
    const onData = (chunk: Buffer | string) => {
      received += chunk.length;
      if (received > bounds.maxBytes) settle(false);
    };
    const onEnd = () => settle(true);
    const timer = setTimeout(() => settle(false), bounds.maxMs);
    req.on('data', onData).once('end', onEnd).once('close', onEnd).once('error', onEnd);
    req.resume();
  });
}

/** Every reply waits for the unread rest of its request body before it goes out (see above). */
export function installBodyDrain(fastify: FastifyInstance, bodyLimitBytes: number): void {
  const bounds = drainBounds(bodyLimitBytes);
  fastify.addHook('onSend', async (request, reply, payload) => {
    if (!(await drainRequestBody(request.raw, bounds))) reply.header('connection', 'close');
    return payload;
  });
}
