import { Projector } from './projector';
import { WriteWatermark } from './write-watermark';

/** How long a query waits for the projector before answering 503 (it is live, so normally ~ms). */
const READ_WAIT_MS = 5000;

/** Read-your-writes on one instance (docs/design.md#read-models-and-consistency). */
export class ReadConsistency {
  constructor(
    private readonly projector: Projector,
    private readonly watermark: WriteWatermark,
  ) {}

  /**
   * Resolves once the projector has applied every write this instance acknowledged. Rejects with
   * `StoreUnavailableError` at once while the read-model file refuses writes or the projector
   * thread is down (waiting would not help), as soon as the batch it waits for is refused, or
   * after a bounded wait.
   */
  async caughtUp(): Promise<void> {
    const problem = this.projector.problem;
    if (problem && this.projector.position < this.watermark.position) throw problem;
    await this.projector.waitFor(this.watermark.position, READ_WAIT_MS);
  }
}
