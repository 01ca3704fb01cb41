import { Projector } from '../projector';
import { ExecutionsReadModel } from './executions.read-model';

/**
 * What the restart sweep asks the read side (docs/api.md#executions): every execution not yet
 * ended, once the executions projection holds the log up to a position.
 */
export class InFlightExecutions {
  constructor(
    private readonly projector: Projector,
    private readonly executions: ExecutionsReadModel,
  ) {}

  /** Rejects with `StoreUnavailableError` when the projection has not reached `upTo` within `timeoutMs`. */
  async list(upTo: number, timeoutMs: number): Promise<{ id: string; owner: string | null }[]> {
    await this.projector.waitFor(upTo, timeoutMs);
    return this.executions.inFlight();
  }
}
