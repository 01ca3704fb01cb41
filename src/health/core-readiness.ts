import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { StoreHealth } from '../event-store/store-health';
import { ReadinessChecks } from './readiness-checks';
import { ShutdownState } from './shutdown-state';
import { StoreWriteProbe } from './store-write-probe';

/** A store that hangs (a half-open connection) must make the probe say no, not time it out. */
const STORE_PROBE_TIMEOUT_MS = 2000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The checks readiness always has: the store answers a cheap read, it takes writes (as the last
 * append found it), and the process is not stopping. Messages stay generic: the endpoint needs
 * no key, and the store's own error (paths, hosts) belongs in the log.
 */
@Injectable()
export class CoreReadiness implements OnModuleInit {
  constructor(
    private readonly checks: ReadinessChecks,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly storeHealth: StoreHealth,
    private readonly shutdown: ShutdownState,
    private readonly writeProbe: StoreWriteProbe,
  ) {}

  onModuleInit(): void {
    this.checks.add('eventStore', async () => {
      try {
        return { ready: true, headPosition: await within(this.store.headPosition(), STORE_PROBE_TIMEOUT_MS) };
      } catch {
        return { ready: false, message: 'the event store does not answer reads' };
      }
    });
    this.checks.add('storeWrites', async () => {
      if (!this.storeHealth.writable) await this.writeProbe.tryWrite();
      return this.storeHealth.writable ? { ready: true } : { ready: false, message: 'the event store refuses writes', since: this.storeHealth.problem?.since };
    });
    this.checks.add('shutdown', () =>
      this.shutdown.stopping ? { ready: false, message: 'the process is shutting down', since: this.shutdown.since } : { ready: true },
    );
  }
}
