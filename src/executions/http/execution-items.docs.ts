import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiOkResponse, ApiParam, getSchemaPath } from '@nestjs/swagger';
import { RouteDocs } from '../../openapi/route-docs';
import { ActionListResponse, ActionResponse } from './action.response';
import { ApprovalAnswerDto, InputAnswerDto } from './respond-to-action.dto';
import { ArtifactListResponse } from './artifact.response';
import { ExecutionIdParam } from './executions.docs';

/** docs/api.md#actions */
export const ActionsDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'actions', summary: "An execution's actions, in creation order", errors: ['NOT_FOUND'] }),
    ExecutionIdParam(),
    ApiOkResponse({ type: ActionListResponse }),
  );

export const RespondDocs = () =>
  applyDecorators(
    RouteDocs({
      tag: 'actions',
      summary: 'Answer an action',
      description:
        'Checks in this order: unknown execution (404 NOT_FOUND) → unknown action (404 ACTION_NOT_FOUND) → already answered ' +
        "(409 ACTION_ALREADY_RESOLVED; of racing answers exactly one wins) → action cancelled or execution ended (409 INVALID_STATE) → body of the wrong shape for the action's kind, " +
        'or a value that fails its inputSchema (400). Appends exactly one `action.responded`.',
      body: true,
      errors: ['NOT_FOUND', 'ACTION_NOT_FOUND', 'ACTION_ALREADY_RESOLVED', 'INVALID_STATE', 'STORE_UNAVAILABLE'],
    }),
    ExecutionIdParam(),
    ApiParam({ name: 'actionId', description: "Action id (from `action.required`; never contains ':' or '/')" }),
    ApiExtraModels(ApprovalAnswerDto, InputAnswerDto),
    ApiBody({
      description: '`{decision, comment?}` for an approval action, `{value}` for an input action',
      schema: { oneOf: [{ $ref: getSchemaPath(ApprovalAnswerDto) }, { $ref: getSchemaPath(InputAnswerDto) }] },
    }),
    ApiOkResponse({ type: ActionResponse, description: 'The action, now `resolved`' }),
  );

/** docs/api.md#artifacts */
export const ArtifactsDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'artifacts', summary: "An execution's artifact descriptors, in creation order", errors: ['NOT_FOUND'] }),
    ExecutionIdParam(),
    ApiOkResponse({ type: ArtifactListResponse }),
  );
