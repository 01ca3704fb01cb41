import { Module } from '@nestjs/common';
import { WebhooksReadModelModule } from '../read-models/webhooks/webhooks-read-model.module';
import { WebhookSupervisor } from './delivery/webhook-supervisor';
import { WebhooksController } from './http/webhooks.controller';
import { WebhookCommands } from './webhook-commands';

/** Webhook endpoints and their delivery from the log (docs/webhooks.md). */
@Module({ imports: [WebhooksReadModelModule], controllers: [WebhooksController], providers: [WebhookCommands, WebhookSupervisor] })
export class WebhooksModule {}
