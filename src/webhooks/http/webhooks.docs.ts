import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiQuery } from '@nestjs/swagger';
import { RouteDocs } from '../../openapi/route-docs';
import { WebhookDeliveryPageResponse, WebhookListResponse, WebhookReplayResponse, WebhookResponse, WebhookWithSecretResponse } from './webhook.response';

const WebhookIdParam = () => ApiParam({ name: 'id', description: "Webhook id (opaque; never contains ':' or '/')" });

/** docs/api.md#webhooks */
export const CreateWebhookDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'webhooks',
      summary: 'Register a webhook endpoint',
      description:
        'The answer is the only one that shows the signing secret. A URL that is not https (http only with WEBHOOK_ALLOW_HTTP=true) or whose ' +
        'host resolves to a loopback, private or link-local address (unless WEBHOOK_ALLOW_PRIVATE=true) is 400; a tenant at ' +
        'WEBHOOK_MAX_PER_TENANT endpoints gets 429.',
      body: true,
      errors: ['STORE_UNAVAILABLE'],
    }),
    ApiCreatedResponse({ type: WebhookWithSecretResponse }),
  );

export const ListWebhooksDocs = () =>
  applyDecorators(RouteDocs({ tag: 'webhooks', summary: "The tenant's webhook endpoints" }), ApiOkResponse({ type: WebhookListResponse }));

export const GetWebhookDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'webhooks', summary: 'A webhook endpoint (never its secret)', errors: ['NOT_FOUND'] }),
    WebhookIdParam(),
    ApiOkResponse({ type: WebhookResponse }),
  );

export const DeleteWebhookDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'webhooks',
      summary: 'Delete a webhook endpoint: nothing is delivered to it afterwards',
      // No body is read, but one that is sent meets the same edge checks (415, 413) as on any route.
      body: true,
      errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
    }),
    WebhookIdParam(),
    ApiNoContentResponse({ description: 'Deleted' }),
  );

export const RotateWebhookSecretDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'webhooks',
      summary: 'Rotate the signing secret',
      description: 'For 24 hours deliveries carry two signatures, with the new secret and the previous one. An empty body is fine.',
      body: true,
      errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
    }),
    WebhookIdParam(),
    ApiBody({ required: false, schema: { type: 'object', additionalProperties: false, maxProperties: 0, description: 'Empty: no field is taken' } }),
    ApiOkResponse({ type: WebhookWithSecretResponse, description: 'The endpoint with its new secret' }),
  );

export const ListDeliveriesDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'webhooks', summary: "The endpoint's delivery log, oldest event first", errors: ['NOT_FOUND'] }),
    WebhookIdParam(),
    ApiQuery({ name: 'after', required: false, schema: { type: 'integer', minimum: 0, default: 0 }, description: 'Cursor: an event position' }),
    ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } }),
    ApiOkResponse({ type: WebhookDeliveryPageResponse }),
  );

export const ReplayWebhookDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'webhooks',
      summary: 'Send every matching event after a log position again',
      description: 'With the same `webhook-id`s as before, so receivers dedupe. At most WEBHOOK_REPLAY_MAX_EVENTS events: a wider range is 400.',
      body: true,
      errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'],
    }),
    WebhookIdParam(),
    ApiOkResponse({ type: WebhookReplayResponse }),
  );
