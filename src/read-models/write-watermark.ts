import { AppendResult, StoreUnavailableError } from '../event-store/event-store';
import { AppendObserver } from '../event-store/event-store-gateway';
import { isProjectedStream } from './projection';

/**
 * The last position this instance appended to a projected stream: a query waits for the
 * projector to pass it, which is read-your-writes without pulling on the query path.
 */
export class WriteWatermark implements AppendObserver {
  position = 0;

  appended(streamId: string, _events: unknown, result: AppendResult): void {
    if (isProjectedStream(streamId) && result.position > this.position) this.position = result.position;
  }

  refused(_error: StoreUnavailableError): void {}
}
