import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_STORE, EventStore, StoreUnavailableError, StoredEvent } from '../../event-store/event-store';
import { backoff, retryDelay } from '../commands/store-retry';
import { executionIdOf } from '../execution-stream';
import { CANCEL_REQUESTED, CANCEL_REQUEST_PREFIX } from './cancel-requests';
import { ExecutionRunner } from './execution-runner';
import { InstanceLiveness } from './instance-liveness';

/**
 * On a shared store, answers and cancels may reach another instance than the one running the
 * execution. They are in the log either way — an `action.responded` on the execution's stream, a
 * `cancel.requested` on its cancel-request stream — and this follower hands each one to the
 * session it concerns, if that session runs here: the answer goes to the provider, the cancel
 * runs the provider's cleanup once and appends `run.cancelled`.
 */
@Injectable()
export class OwnerFollower implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OwnerFollower');
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ExecutionRunner,
    private readonly liveness: InstanceLiveness,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.liveness.shared) return;
    // Sessions start after this point, so nothing earlier can concern them.
    const from = await this.store.headPosition();
    void this.follow(from);
  }

  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  private async follow(from: number): Promise<void> {
    let after = from;
    for (let failures = 1; !this.stopping.signal.aborted; failures++) {
      try {
        const items = this.store.subscribeToAllFiltered({
          filter: { streamPrefixes: ['execution-', CANCEL_REQUEST_PREFIX], types: ['action.responded', CANCEL_REQUESTED] },
          after,
          signal: this.stopping.signal,
        });
        for await (const item of items) {
          after = item.kind === 'event' ? item.event.position : item.position;
          if (item.kind === 'event') this.hand(item.event);
          failures = 1;
        }
        return;
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) {
          this.logger.error(`stopped following answers and cancels: ${(error as Error).message}`);
          return;
        }
        if (!(await retryDelay(backoff(failures), this.stopping.signal))) return;
      }
    }
  }

  private hand(event: StoredEvent): void {
    this.logger.debug(`${event.type} on ${event.streamId} from the log`);
    if (event.type === 'action.responded') {
      const { actionId, response } = event.data as { actionId: string; response: Record<string, unknown> };
      this.runner.session(executionIdOf(event.streamId))?.deliverAnswer(actionId, response);
      return;
    }
    const executionId = event.streamId.slice(CANCEL_REQUEST_PREFIX.length);
    const session = this.runner.session(executionId);
    if (!session) return;
    session.cancel((event.data as { reason: string | null }).reason).catch((error) => {
      // The requester learns the outcome from the execution's stream; here it is only logged.
      this.logger.warn(`cancel of ${executionId} requested by another instance: ${(error as Error).message}`);
    });
  }
}
