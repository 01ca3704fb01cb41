import { Injectable, OnApplicationShutdown } from '@nestjs/common';

/** Every open SSE response, so that shutdown can end them instead of waiting on idle clients. */
@Injectable()
export class SseConnections implements OnApplicationShutdown {
  private readonly open = new Set<AbortController>();

  track(): AbortController {
    const controller = new AbortController();
    this.open.add(controller);
    controller.signal.addEventListener('abort', () => this.open.delete(controller), { once: true });
    return controller;
  }

  onApplicationShutdown(): void {
    for (const controller of [...this.open]) controller.abort();
  }
}
