import http from 'node:http';
import https from 'node:https';
import { guardedLookup, hostOf, isInternalAddress } from './address-policy';
import { isIP } from 'node:net';

export interface SendResult {
  statusCode: number | null;
  /** `Retry-After` as the receiver sent it. */
  retryAfter: string | undefined;
  error: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  /** The deliverer's keep-alive agent: a reused connection was checked when it was made. */
  agent?: http.Agent;
}

/** At most this much of a receiver's answer is read; the rest is dropped (only the status matters). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * One POST, resolved with the receiver's status or why there was none. Redirects are not
 * followed (a 3xx is a failed attempt); the address connected to is checked by `guardedLookup`
 * (an IP literal never reaches a lookup, so it is checked here).
 */
export function sendWebhook(url: URL, headers: Record<string, string>, body: string, options: SendOptions): Promise<SendResult> {
  const host = hostOf(url);
  if (!options.allowPrivate && isIP(host) !== 0 && isInternalAddress(host)) {
    return Promise.resolve({ statusCode: null, retryAfter: undefined, error: `${host} is a loopback, private or link-local address` });
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'runledger-webhooks', ...headers },
        lookup: guardedLookup(options.allowPrivate) as never,
        agent: options.agent ?? false,
      },
      (response) => {
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_RESPONSE_BYTES) response.destroy();
        });
        const retryAfter = response.headers['retry-after'];
        const result = { statusCode: response.statusCode ?? null, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, error: null };
        response.on('end', () => finish(result));
        response.on('close', () => finish(result));
        response.on('error', () => finish(result));
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      finish({ statusCode: null, retryAfter: undefined, error: `no answer within ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    request.on('error', (error) => finish({ statusCode: null, retryAfter: undefined, error: error.message }));
    request.end(body);
  });
}
