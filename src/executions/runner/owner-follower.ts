import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { INSTANCE_ID } from '../../common/instance-id';
import { EVENT_STORE, EventStore, StoredEvent } from '../../event-store/event-store';
import { Processor } from '../../event-store/processor';
import { CANCEL_REQUESTED, CANCEL_REQUEST_PREFIX, CancelRequest, cancelledExecutionOf, isCancelRequest } from '../cancel-requests';
import { endExecution } from '../commands/end-execution';
import { executionIdOf, loadExecution } from '../execution-stream';
import { ExecutionRunner } from './execution-runner';
import { QueuedStarts } from './queued-starts';

/**
 * Answers and cancels reach the runner only through the log, whichever instance took them (on
 * every store): an `action.responded` on the execution's stream, a `cancel.requested` on its
 * cancel-request stream. This follower hands each one to the session it concerns, if that session
 * runs here: the answer goes to the provider, the cancel runs the provider's cleanup once and
 * appends `run.cancelled`. One filtered subscription to `$all` from the head at boot serves every
 * session of this instance (sessions start after it).
 */
@Injectable()
export class OwnerFollower implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('OwnerFollower');
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ExecutionRunner,
    @Optional() private readonly queued?: QueuedStarts,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // The checkpoint lives in memory: after a restart the sweep ends whatever this instance ran.
    const processor = new Processor(this.store, {
      name: 'OwnerFollower',
      writes: 'answers and cancels',
      filter: { streamPrefixes: ['execution-', CANCEL_REQUEST_PREFIX], types: ['action.responded', CANCEL_REQUESTED] },
      from: await this.store.headPosition(),
      handle: ({ events }) => events.forEach((event) => this.hand(event)),
    });
    void processor.run(this.stopping.signal);
  }

  beforeApplicationShutdown(): void {
    this.stopping.abort();
  }

  private hand(event: StoredEvent): void {
    this.logger.debug(`${event.type} on ${event.streamId} from the log`);
    if (isCancelRequest(event)) return this.cancel(cancelledExecutionOf(event), event.data as unknown as CancelRequest);
    if (event.type !== 'action.responded') return;
    const { actionId, response } = event.data as { actionId: string; response: Record<string, unknown> };
    this.runner.session(executionIdOf(event.streamId))?.deliverAnswer(actionId, response);
  }

  private cancel(executionId: string, { reason, owner }: CancelRequest): void {
    const session = this.runner.session(executionId);
    // Another instance's run: its own follower acts on the request.
    if (!session && owner !== INSTANCE_ID) return;
    // A queued execution waiting here is never started under its cancel.
    if (!session) this.queued?.withdraw(executionId);
    // The requester learns the outcome from the execution's stream; here it is only logged.
    const cancelled = session ? session.cancel(reason) : this.endUndriven(executionId, reason);
    cancelled.catch((error) => this.logger.warn(`cancel of ${executionId} from the log: ${(error as Error).message}`));
  }

  /** A run of this instance that no session drives any more (its end was never stored): the events alone decide. */
  private async endUndriven(executionId: string, reason: string | null): Promise<void> {
    const loaded = await loadExecution(this.store, executionId);
    if (loaded) await endExecution(this.store, loaded, { type: 'cancel', reason, providerCleanupError: null });
  }
}
