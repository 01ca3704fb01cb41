import { AppendResult } from '../../event-store/event-store';
import { AppendObserver } from '../../event-store/event-store-gateway';
import { WEBHOOK_STREAM_PREFIX } from '../../webhooks/domain/webhook-events';

/** The last position this instance appended to a webhook stream: what a webhooks query waits for. */
export class WebhookWriteWatermark implements AppendObserver {
  position = 0;

  appended(streamId: string, _events: unknown, result: AppendResult): void {
    if (streamId.startsWith(WEBHOOK_STREAM_PREFIX) && result.position > this.position) this.position = result.position;
  }

  refused(): void {}
}
