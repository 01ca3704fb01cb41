import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { QueryBus } from '@nestjs/cqrs';
import { validationError } from '../../http/api-error';
import { AllowQuery, integerParam } from '../../http/strict-query';
import { Tenant } from '../../http/tenant.decorator';
import { GetWebhookQuery, ListDeliveriesQuery, ListWebhooksQuery } from '../../read-models/webhooks/webhooks.query';
import { WebhookCommands } from '../webhook-commands';
import { CreateWebhookDto } from './create-webhook.dto';
import { ReplayWebhookDto } from './replay-webhook.dto';
import { WebhookDeliveryPageResponse, WebhookListResponse, WebhookReplayResponse, WebhookResponse, WebhookWithSecretResponse } from './webhook.response';
import {
  CreateWebhookDocs,
  DeleteWebhookDocs,
  GetWebhookDocs,
  ListDeliveriesDocs,
  ListWebhooksDocs,
  ReplayWebhookDocs,
  RotateWebhookSecretDocs,
} from './webhooks.docs';

/** Ids never contain ':' or '/': `abc:rotate-secret` cannot match the plain routes (as on /v1/executions). */
const ID = ':id(^[^:/]+)';

/** docs/api.md#webhooks */
@Controller('v1/webhooks')
export class WebhooksController {
  constructor(
    private readonly commands: WebhookCommands,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @CreateWebhookDocs()
  create(@Tenant() tenantId: string, @Body() body: CreateWebhookDto): Promise<WebhookWithSecretResponse> {
    return this.commands.create(tenantId, body);
  }

  @Get()
  @ListWebhooksDocs()
  async list(@Tenant() tenantId: string): Promise<WebhookListResponse> {
    return { webhooks: await this.queries.execute(new ListWebhooksQuery(tenantId)) };
  }

  @Get(ID)
  @GetWebhookDocs()
  get(@Tenant() tenantId: string, @Param('id') id: string): Promise<WebhookResponse> {
    return this.queries.execute(new GetWebhookQuery(tenantId, id));
  }

  @Delete(ID)
  @HttpCode(204)
  @DeleteWebhookDocs()
  async delete(@Tenant() tenantId: string, @Param('id') id: string): Promise<void> {
    await this.commands.delete(tenantId, id);
  }

  @Post(`${ID}::rotate-secret`)
  @HttpCode(200)
  @RotateWebhookSecretDocs()
  rotate(@Tenant() tenantId: string, @Param('id') id: string, @Body() body: Record<string, unknown> | undefined): Promise<WebhookWithSecretResponse> {
    const [field] = Object.keys(body ?? {});
    if (field !== undefined) throw validationError(`${field} is not a known field`);
    return this.commands.rotate(tenantId, id);
  }

  @Post(`${ID}::replay`)
  @HttpCode(200)
  @ReplayWebhookDocs()
  replay(@Tenant() tenantId: string, @Param('id') id: string, @Body() body: ReplayWebhookDto): Promise<WebhookReplayResponse> {
    return this.commands.replay(tenantId, id, body.after);
  }

  @Get(`${ID}/deliveries`)
  @ListDeliveriesDocs()
  @AllowQuery('after', 'limit')
  async deliveries(@Tenant() tenantId: string, @Param('id') id: string, @Query() query: Record<string, unknown>): Promise<WebhookDeliveryPageResponse> {
    const after = integerParam(query.after, 'after', 0) ?? 0;
    const limit = integerParam(query.limit, 'limit', 1, 100) ?? 50;
    return { deliveries: await this.queries.execute(new ListDeliveriesQuery(tenantId, id, after, limit)) };
  }
}
