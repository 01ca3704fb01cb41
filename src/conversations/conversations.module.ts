import { Module } from '@nestjs/common';
import { CreateConversationHandler } from './commands/create-conversation.handler';
import { ConversationsController } from './http/conversations.controller';

/** Conversations (docs/api.md#conversations); the read by id is the conversations read model's. */
@Module({ controllers: [ConversationsController], providers: [CreateConversationHandler] })
export class ConversationsModule {}
