import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { nowIso } from '../../common/clock';
import { EVENT_STORE, EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import { ExecutionIndex } from '../../projections/execution-index';
import { decide } from '../domain/execution-decide';
import { isTerminal } from '../domain/execution-state';
import { executionStream, loadExecution, toNewEvents } from '../execution-stream';

const INTERRUPTED = { code: 'RUNTIME_INTERRUPTED', message: 'the runtime stopped while this execution was in flight' };

/**
 * §4 and rule 9: at start, every execution left in flight by an earlier process ends with
 * `run.failed` RUNTIME_INTERRUPTED (no built-in provider can resume). Runs before the server
 * listens, so no client sees such an execution still "running".
 */
@Injectable()
export class InterruptedExecutions implements OnApplicationBootstrap {
  private readonly logger = new Logger('Restart');

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly index: ExecutionIndex,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const inFlight = await this.index.nonTerminal();
    for (const { id } of inFlight) await this.interrupt(id);
    if (inFlight.length > 0) this.logger.warn(`ended ${inFlight.length} interrupted execution(s) with RUNTIME_INTERRUPTED`);
  }

  private async interrupt(executionId: string): Promise<void> {
    let loaded = await loadExecution(this.store, executionId);
    while (loaded && !isTerminal(loaded.state.status)) {
      const events = decide({ type: 'fail', error: INTERRUPTED }, loaded.state);
      try {
        await this.store.append(
          executionStream(executionId),
          toNewEvents(executionId, events, { tenantId: loaded.tenantId, occurredAt: nowIso() }),
          loaded.revision,
        );
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        loaded = await loadExecution(this.store, executionId, loaded);
      }
    }
  }
}
