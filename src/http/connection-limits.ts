import type { Server } from 'node:http';
import { Config } from '../config/config';

/**
 * Node checks for late requests on a timer, every 30 s by default: a short REQUEST_TIMEOUT_MS
 * would then be up to 30 s late. A quarter of the timeout, within 50 ms and 1 s, keeps the answer
 * close to the bound for the cost of one walk over the requests still arriving.
 */
const checkingIntervalMs = (timeoutMs: number) => Math.min(1000, Math.max(50, Math.floor(timeoutMs / 4)));

/**
 * The bounds on what a connection may hold, as Node's http.Server options (Fastify passes `http`
 * through and sets `requestTimeout` itself). Fastify's default is no request timeout at all, so a
 * body that never finishes held its socket and its buffered bytes forever. Headers get the same
 * time as the whole request; both run from the request's first byte (for a fresh connection, from
 * the connect), and only until the request has arrived, so a long event stream is never cut.
 * A late request is answered 408 by clientErrorHandler (framework-errors.ts) and closed.
 */
export function connectionOptions(config: Pick<Config, 'requestTimeoutMs'>) {
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.requestTimeoutMs,
      connectionsCheckingInterval: checkingIntervalMs(config.requestTimeoutMs),
    },
  };
}

/** Past MAX_CONNECTIONS Node closes each new connection as it arrives, before reading a byte. */
export function capConnections(server: Server, config: Pick<Config, 'maxConnections'>): void {
  server.maxConnections = config.maxConnections;
}
