import { connect, Socket } from 'node:net';

export interface HeldSocket {
  socket: Socket;
  /** Resolves once the server has closed its side: what it wrote, and when since `connect`. */
  closed: Promise<{ text: string; afterMs: number }>;
}

/**
 * A raw connection that writes `bytes` and then neither sends more nor closes, as a hostile or
 * stuck client does. `allowHalfOpen` keeps the client from closing when the server ends: only
 * the server can end the exchange. The server's end (FIN) or reset both count as closed.
 */
export function holdSocket(port: number, bytes: string | Buffer): Promise<HeldSocket> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const closed = new Promise<{ text: string; afterMs: number }>((done) => {
      const settle = () => done({ text: Buffer.concat(chunks).toString('utf8'), afterMs: performance.now() - started });
      socket.once('end', settle).once('close', settle);
    });
    socket.once('error', () => undefined);
    socket.once('connect', () => {
      socket.off('error', reject);
      if (bytes.length > 0) socket.write(bytes);
      resolve({ socket, closed });
    });
    socket.once('error', reject);
  });
}

/** An HTTP/1.1 POST head announcing `length` bytes of JSON body. */
export const postHead = (path: string, length: number, headers: Record<string, string> = {}): string =>
  `POST ${path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n` +
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('') +
  '\r\n';
