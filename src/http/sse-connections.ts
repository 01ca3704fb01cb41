import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { CONFIG, Config } from '../config/config';

/** How long shutdown waits for ended streams to reach their clients before cutting them off. */
const FLUSH_TIMEOUT_MS = 2000;

/**
 * Every open SSE response, so that shutdown can end them and no tenant holds more than
 * SSE_MAX_STREAMS_PER_TENANT of them (both SSE routes together). Nest closes the HTTP server between
 * `beforeApplicationShutdown` and `onApplicationShutdown`, and that close waits for every
 * hijacked response: the streams must have ended before it, or it never returns.
 */
@Injectable()
export class SseConnections implements BeforeApplicationShutdown {
  private readonly logger = new Logger('SSE');
  private readonly open = new Map<ServerResponse, AbortController>();
  private readonly perTenant = new Map<string, number>();
  /** What to release when a socket closes: one listener per socket, however many streams it queued. */
  private readonly bySocket = new WeakMap<Socket, Set<() => void>>();
  private stopping = false;

  constructor(@Inject(CONFIG) private readonly config: Pick<Config, 'sseMaxStreamsPerTenant'>) {}

  /** The cap on one tenant's open streams. */
  get maxPerTenant(): number {
    return this.config.sseMaxStreamsPerTenant;
  }

  /** Whether the tenant may open one more stream now. */
  hasRoom(tenantId: string): boolean {
    return (this.perTenant.get(tenantId) ?? 0) < this.maxPerTenant;
  }

  /** Streams open now (metrics, limits). */
  get size(): number {
    return this.open.size;
  }

  /**
   * The signal that tells the stream's writer to stop and end its response (with the final chunk).
   * The writer stays the only one to touch the response, so nothing is written after its end.
   */
  track(response: ServerResponse, tenantId: string): AbortSignal {
    const controller = new AbortController();
    this.open.set(response, controller);
    this.perTenant.set(tenantId, (this.perTenant.get(tenantId) ?? 0) + 1);
    // A request pipelined behind another on its socket has its response queued by Node until the
    // ones before it end; when the socket dies first, that response never gets a 'close' of its
    // own, and the socket's is the only sign. (The request's 'close' is no sign: it also fires
    // once a body has been read, while the stream goes on.)
    const socket = response.req?.socket ?? response.socket;
    const release = () => {
      if (!this.open.has(response)) return;
      response.off('close', release);
      if (socket) this.bySocket.get(socket)?.delete(release);
      controller.abort();
      this.open.delete(response);
      const left = (this.perTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) this.perTenant.set(tenantId, left);
      else this.perTenant.delete(tenantId);
    };
    response.once('close', release);
    if (socket) this.onSocketClose(socket, release);
    // The client may have left while the route was still looking things up: both events are past.
    if (response.destroyed || socket?.destroyed) release();
    // A stream that starts while the process stops ends at once; its client resumes elsewhere.
    if (this.stopping) controller.abort();
    return controller.signal;
  }

  private onSocketClose(socket: Socket, release: () => void): void {
    let releases = this.bySocket.get(socket);
    if (!releases) {
      const all = new Set<() => void>();
      releases = all;
      this.bySocket.set(socket, all);
      socket.once('close', () => {
        this.bySocket.delete(socket);
        for (const each of all) each();
      });
    }
    releases.add(release);
  }

  /**
   * Ends every stream cleanly — the final chunk, not a reset, so a client sees the end of the
   * stream and reconnects with Last-Event-ID — and waits until each has been flushed. A client
   * too slow to take its last bytes in time is cut off.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    const streams = [...this.open];
    if (streams.length === 0) return;
    this.logger.log(`ending ${streams.length} event stream(s) for shutdown`);
    const flushed = streams.map(([response, controller]) => {
      const done = new Promise<void>((resolve) => {
        if (response.writableFinished || response.destroyed) return resolve();
        response.once('finish', resolve).once('close', resolve);
      });
      controller.abort();
      return done;
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, FLUSH_TIMEOUT_MS)));
    await Promise.race([Promise.all(flushed), timedOut]);
    clearTimeout(timer);
    for (const [response] of streams) if (!response.writableFinished) response.destroy();
  }
}
