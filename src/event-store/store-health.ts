import { Injectable } from '@nestjs/common';
import { StoreUnavailableError } from './event-store';
import { AppendObserver } from './event-store-gateway';

/**
 * Whether the event store takes writes, as the last append found it: a refusal makes it
 * unwritable until an append succeeds again (readiness reports that).
 */
@Injectable()
export class StoreHealth implements AppendObserver {
  private refusal: { error: StoreUnavailableError; since: number } | null = null;

  get writable(): boolean {
    return this.refusal === null;
  }

  /** Why and since when writes fail, or null. */
  get problem(): { message: string; since: string } | null {
    return this.refusal && { message: this.refusal.error.message, since: new Date(this.refusal.since).toISOString() };
  }

  appended(): void {
    this.refusal = null;
  }

  refused(error: StoreUnavailableError): void {
    this.refusal ??= { error, since: Date.now() };
  }
}
