import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ApiError } from '../../common/api-error';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ExecutionIndex } from '../../projections/execution-index/execution-index';
import { decideAndAppend } from '../commands/decide-and-append';
import { isTerminal } from '../domain/execution-state';
import { loadExecution } from '../execution-stream';

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
    const loaded = await loadExecution(this.store, executionId);
    // Ended meanwhile (or never queued): nothing to do.
    if (!loaded || isTerminal(loaded.state.status)) return;
    await decideAndAppend(this.store, loaded, { type: 'fail', error: INTERRUPTED }).catch((error) => {
      if (!(error instanceof ApiError)) throw error;
    });
  }
}
