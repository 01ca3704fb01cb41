import { Agent, request } from 'node:http';

export interface RawRequest {
  method: string;
  /** Path and query exactly as sent: no client normalizes or re-encodes it. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The answer was an event stream (read up to its first bytes, then dropped). */
  stream: boolean;
}

const MAX_BODY = 256 * 1024;

/**
 * One request through node:http, which sends paths and header values as given (within what HTTP
 * allows), unlike fetch. An event stream is dropped after its first bytes; a body is read whole.
 */
export function send(port: number, agent: Agent, req: RawRequest, timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, agent, method: req.method, path: req.path, headers: req.headers });
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms: ${req.method} ${req.path}`));
    }, timeoutMs);
    outgoing.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    outgoing.on('response', (res) => {
      const stream = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
      let text = '';
      const done = () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode!, headers: res.headers, text, stream });
      };
      if (stream) {
        // A stream ends when the execution does, or never (the feed): take the first bytes and go.
        res.once('data', () => {
          outgoing.destroy();
          done();
        });
        res.once('end', () => {
          outgoing.destroy();
          done();
        });
        return;
      }
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (text.length < MAX_BODY) text += chunk;
      });
      res.on('end', done);
      res.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    outgoing.end(req.body);
  });
}
