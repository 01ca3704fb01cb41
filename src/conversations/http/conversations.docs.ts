import { applyDecorators } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiParam } from '@nestjs/swagger';
import { RouteDocs } from '../../openapi/route-docs';
import { ConversationResponse } from './conversation.response';

/** docs/api.md#conversations */
export const CreateConversationDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'conversations', summary: 'Create a conversation', body: true, errors: ['STORE_UNAVAILABLE'] }),
    ApiCreatedResponse({ type: ConversationResponse, description: 'The new conversation (no executions yet)' }),
  );

export const GetConversationDocs = () =>
  applyDecorators(
    RouteDocs({ tag: 'conversations', summary: 'A conversation and its executions, oldest first', errors: ['NOT_FOUND', 'STORE_UNAVAILABLE'] }),
    ApiParam({ name: 'id', description: 'Conversation id (opaque)' }),
    ApiOkResponse({ type: ConversationResponse }),
  );
