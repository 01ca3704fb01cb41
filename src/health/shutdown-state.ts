import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';

/**
 * Whether the process has begun to stop. main.ts flips it the moment SIGTERM arrives, before
 * Nest runs any shutdown hook, so readiness turns 503 while streams are still being ended and
 * the load balancer stops sending new requests; the hook covers every other way to close the app.
 */
@Injectable()
export class ShutdownState implements BeforeApplicationShutdown {
  private startedAt: number | null = null;

  get stopping(): boolean {
    return this.startedAt !== null;
  }

  /** When shutdown began (ISO-8601), or null. */
  get since(): string | null {
    return this.startedAt === null ? null : new Date(this.startedAt).toISOString();
  }

  /** Idempotent: the first call wins, so `since` is when the signal came. */
  begin(): void {
    this.startedAt ??= Date.now();
  }

  beforeApplicationShutdown(): void {
    this.begin();
  }
}
