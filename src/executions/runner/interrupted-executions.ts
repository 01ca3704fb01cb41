import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore, StoreUnavailableError } from '../../event-store/event-store';
import { InFlightExecutions } from '../../read-models/executions/in-flight-executions';
import { endExecution } from '../commands/end-execution';
import { backoff, retryDelay } from '../../common/backoff';
import { isTerminal } from '../domain/execution-state';
import { passedDeadline } from '../domain/execution-deadlines';
import { nowIso } from '../../common/clock';
import { loadExecution } from '../execution-stream';
import { ExecutionRunner } from './execution-runner';
import { InstanceLiveness } from '../instance-liveness';
import { QueuedStarts } from './queued-starts';
import { waitPlanOf, waitsBehindOthers } from './wait-plan';

/** How long the first sweep waits for the projections (a rebuild at start); then it goes on in the background. */
const CATCH_UP_MS = 10_000;

const INTERRUPTED = { code: 'RUNTIME_INTERRUPTED', message: 'the runtime stopped while this execution was in flight' };
const OWNER_GONE = { code: 'RUNTIME_INTERRUPTED', message: 'the instance running this execution stopped (its heartbeat lapsed)' };

/**
 * docs/api.md#executions: at start, every execution left in flight by an earlier process ends with
 * `run.failed` RUNTIME_INTERRUPTED (no built-in provider can resume), or DEADLINE_EXCEEDED /
 * ACTION_EXPIRED when a deadline stored in its events passed meanwhile (docs/api.md#deadlines).
 *
 * The first sweep runs before the server listens, so normally no client sees such an execution
 * still "running". When the store refuses writes, the start goes on (reads still work, and
 * `pending` tells readiness) and the sweep retries in the background until it is done.
 */
@Injectable()
export class InterruptedExecutions implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Restart');
  private readonly stopping = new AbortController();
  private done = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly inFlight: InFlightExecutions,
    private readonly runner: ExecutionRunner,
    private readonly liveness: InstanceLiveness,
    @Inject(CONFIG) private readonly config: Pick<Config, 'heartbeatIntervalMs'>,
    @Optional() private readonly queued?: QueuedStarts,
  ) {}

  /** True until every execution an earlier process left in flight has been ended. */
  get pending(): boolean {
    return !this.done;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (this.liveness.shared) this.watchOthers();
    if (await this.sweep()) return;
    this.logger.warn('the event store refuses writes: executions left in flight will be ended once it takes them again');
    this.retryUntilDone().catch((error) => this.logger.error(`the sweep of interrupted executions stopped: ${(error as Error).message}`));
  }

  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  /** On a shared store, another instance may stop at any time: its runs are swept every heartbeat. */
  private watchOthers(): void {
    let sweeping = false;
    const timer = setInterval(() => {
      if (this.stopping.signal.aborted) return clearInterval(timer);
      // One sweep at a time: under load one may outlast the interval.
      if (!this.done || sweeping) return;
      sweeping = true;
      this.sweep()
        .catch((error) => {
          // A sweep cut short by shutdown (the store closing under it) is the next instance's to redo.
          if (!this.stopping.signal.aborted) this.logger.error(`sweep of stopped instances' executions failed: ${(error as Error).message}`);
        })
        .finally(() => (sweeping = false));
    }, this.config.heartbeatIntervalMs);
    timer.unref();
  }

  private async retryUntilDone(): Promise<void> {
    for (let failures = 1; ; failures++) {
      if (!(await retryDelay(backoff(failures), this.stopping.signal))) return;
      if (await this.sweep()) return;
    }
  }

  /** One pass over what is in flight; false when the store refused a write or a read. */
  private async sweep(): Promise<boolean> {
    try {
      // The executions projection must hold everything logged before this process started.
      const inFlight = await this.inFlight.list(await this.store.headPosition(), CATCH_UP_MS);
      // Executions this process or a live instance runs are in flight too, but they have a driver.
      const gone = await this.liveness.goneOwners();
      const leftOver = inFlight.filter(({ id, owner }) => !this.runner.session(id) && !this.queued?.isWaiting(id) && gone(owner));
      let ended = 0;
      for (const { id } of leftOver) if (await this.interrupt(id, gone)) ended += 1;
      if (ended > 0) this.logger.warn(`ended ${ended} interrupted execution(s)`);
      this.done = true;
      return true;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      return false;
    }
  }

  /** Ends it unless it ended meanwhile or its owner turns out to be alive; the expected revision picks one winner. */
  private async interrupt(executionId: string, gone: (owner: string | null) => boolean): Promise<boolean> {
    const loaded = await loadExecution(this.store, executionId);
    if (!loaded || isTerminal(loaded.state.status) || !gone(loaded.owner)) return false;
    const passed = passedDeadline(loaded.state, nowIso());
    // Queued behind others, it is waiting as it should (docs/api.md#concurrency): adopted, not ended.
    if (!passed && this.queued && waitsBehindOthers(loaded.state)) {
      this.queued.wait(loaded, await waitPlanOf(this.store, loaded.state), true);
      return false;
    }
    const error = passed ?? (loaded.owner === null || !this.liveness.shared ? INTERRUPTED : OWNER_GONE);
    return endExecution(this.store, loaded, { type: 'fail', error });
  }
}
