import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '../event-store/event-store';

/** Its own stream, which no projection reads (they subscribe by stream prefix). */
export const PROBE_STREAM = 'runledger-readiness-probe';
/** Not a tenant API_KEYS can name, so no tenant's feed can ever show the probe. */
const PROBE_TENANT = '$runledger';
/** At most one probe append in flight and one per second, however often probes come. */
const MIN_INTERVAL_MS = 1000;

/**
 * StoreHealth learns that writes work again only from an append that succeeds. An instance that
 * readiness took out of rotation gets no requests, so nothing would append and it would stay
 * not-ready for good — with the one writing instance, an outage that never ends. So while writes
 * are refused, readiness itself tries one small append (through the observed store, so
 * StoreHealth sees the outcome). A success writes one event per outage; a refusal writes nothing.
 */
@Injectable()
export class StoreWriteProbe {
  private lastAttempt = 0;
  private inFlight: Promise<void> | null = null;

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** Resolves once the attempt (if one was due) has succeeded or failed; never rejects. */
  tryWrite(): Promise<void> {
    if (this.inFlight) return this.inFlight;
    if (Date.now() - this.lastAttempt < MIN_INTERVAL_MS) return Promise.resolve();
    this.lastAttempt = Date.now();
    const metadata = { tenantId: PROBE_TENANT, schemaVersion: 1, correlationId: null, causationId: null };
    this.inFlight = this.store
      .append(PROBE_STREAM, [{ type: 'store.writable', data: {}, metadata }], 'any')
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => (this.inFlight = null));
    return this.inFlight;
  }
}
