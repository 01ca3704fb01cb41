import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP pass-through to a real server, so a test can cut every connection at once (a network
 * drop as the client sees it) without touching the server itself.
 */
export class TcpProxy {
  private readonly sockets = new Set<Socket>();
  private server: Server | undefined;
  private port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort);
    await proxy.listen();
    return proxy;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Destroys every open connection; the proxy keeps accepting new ones. */
  dropConnections(): number {
    const count = this.sockets.size;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    return count;
  }

  /** Stops accepting (reconnects are refused) and drops what is open, until resume(); returns how many it dropped. */
  async pause(): Promise<number> {
    const server = this.server;
    this.server = undefined;
    const dropped = this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    return dropped;
  }

  async resume(): Promise<void> {
    if (!this.server) await this.listen();
  }

  async close(): Promise<void> {
    await this.pause();
  }

  private listen(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      // Reuse the first port, so the client's connection string stays valid across pause/resume.
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }
}
