import { StoreUnavailableError } from '../event-store/event-store';
import type { AppendsInFlight } from '../event-store/appends-in-flight';
import { Projector } from './projector';
import { WriteWatermark } from './write-watermark';

/** How long a query waits for the projector before answering 503 (it is live, so normally ~ms). */
const READ_WAIT_MS = 5000;

/** Read-your-writes on one instance (docs/design.md#read-models-and-consistency). */
export class ReadConsistency {
  constructor(
    private readonly projector: Projector,
    private readonly watermark: WriteWatermark,
    /** The store's appends in flight (the gateway's); null where no gateway observes them. */
    private readonly appends: AppendsInFlight | null,
  ) {}

  /**
   * Resolves once every append this instance had begun has settled, and the projector has applied
   * every write this instance acknowledged. A read of the store (a read by id, replay, SSE) may
   * have shown an append before its acknowledgement reached this event loop, and a query must not
   * look older than that. Rejects with `StoreUnavailableError` at once while the read-model file
   * refuses writes or the projector thread is down (waiting would not help), as soon as the batch
   * it waits for is refused, or after a bounded wait.
   */
  async caughtUp(): Promise<void> {
    const began = Date.now();
    this.refuseWhileStuck();
    if (this.appends && !(await this.appends.settled(READ_WAIT_MS))) {
      throw new StoreUnavailableError(`an append of this instance has not settled in ${READ_WAIT_MS} ms`);
    }
    this.refuseWhileStuck();
    await this.projector.waitFor(this.watermark.position, Math.max(0, READ_WAIT_MS - (Date.now() - began)));
  }

  /** The projector cannot apply what this instance wrote (its file refuses writes, its thread is down). */
  private refuseWhileStuck(): void {
    const problem = this.projector.problem;
    if (problem && this.projector.position < this.watermark.position) throw problem;
  }
}
