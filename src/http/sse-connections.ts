import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
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
    response.once('close', () => {
      controller.abort();
      this.open.delete(response);
      const left = (this.perTenant.get(tenantId) ?? 1) - 1;
      if (left > 0) this.perTenant.set(tenantId, left);
      else this.perTenant.delete(tenantId);
    });
    // A stream that starts while the process stops ends at once; its client resumes elsewhere.
    if (this.stopping) controller.abort();
    return controller.signal;
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
