import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { RouteDocs } from '../../openapi/route-docs';
import { ExecutionResponse } from './execution.response';

/** The execution id in every `/v1/executions/{id}…` path. */
export const ExecutionIdParam = () => ApiParam({ name: 'id', description: "Execution id (opaque; never contains ':' or '/')" });

/** docs/api.md#executions, docs/api.md#idempotency, docs/api.md#capability-preflight */
export const StartExecutionDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'executions',
      summary: 'Start an execution',
      description:
        'Checks, first failure wins: body shape (400) → conversation (404 NOT_FOUND) → provider (404 PROVIDER_NOT_FOUND) → ' +
        'provider config (400) → capability preflight (422) → idempotency key (409, or the original execution) → ' +
        'concurrency (409 INVALID_STATE for `reject` while another execution of the conversation has not ended) → create. ' +
        'A request that fails any check appends nothing and does not use up its key.',
      body: true,
      errors: [
        'NOT_FOUND',
        'PROVIDER_NOT_FOUND',
        'IDEMPOTENCY_CONFLICT',
        'INVALID_STATE',
        'CAPABILITY_UNSUPPORTED',
        'QUOTA_EXCEEDED',
        'PROVIDER_ERROR',
        'STORE_UNAVAILABLE',
      ],
    }),
    ApiCreatedResponse({ type: ExecutionResponse, description: 'A new execution, as right after `run.queued` (status `queued`, lastSequence 1)' }),
    ApiOkResponse({
      type: ExecutionResponse,
      description: "The idempotency key's original execution, in its current state",
      headers: { 'Idempotent-Replayed': { description: 'Always `true`', schema: { type: 'string', enum: ['true'] } } },
    }),
  );

export const GetExecutionDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'executions', summary: 'An execution, reflecting every acknowledged event', errors: ['NOT_FOUND'] }),
    ExecutionIdParam(),
    ApiOkResponse({ type: ExecutionResponse }),
  );

export const CancelExecutionDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'executions',
      summary: 'Cancel an execution',
      description:
        "Runs the provider's cleanup once and appends `run.cancelled`; concurrent cancels share that one operation. " +
        'Already cancelled: 200 with nothing appended. Completed or failed: 409 INVALID_STATE. An empty body is fine.',
      body: true,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'STORE_UNAVAILABLE'],
    }),
    ExecutionIdParam(),
    ApiOkResponse({ type: ExecutionResponse, description: 'The execution, status `cancelled`' }),
  );
