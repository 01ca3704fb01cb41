import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { projectionStatus } from '../read-models/projection-status';
import { Projector } from '../read-models/projector';
import { ReadinessChecks } from './readiness-checks';

/** Further behind than this, an instance would answer lists stale (or 503 after waiting): not ready. */
export const READY_LAG_EVENTS = 1000;

/** Not ready while the read models cannot be written or are far behind the log. */
@Injectable()
export class ProjectionsReadiness implements OnModuleInit {
  constructor(
    private readonly checks: ReadinessChecks,
    private readonly projector: Projector,
    @Inject(EVENT_STORE) private readonly store: EventStore,
  ) {}

  onModuleInit(): void {
    this.checks.add('projections', async () => {
      if (this.projector.problem) return { ready: false, message: 'the read models cannot be written' };
      const lag = Math.max(0, ...(await projectionStatus(this.projector, this.store)).map((p) => p.lag));
      return lag > READY_LAG_EVENTS ? { ready: false, message: 'the read models are far behind the event log', lag } : { ready: true, lag };
    });
  }
}
