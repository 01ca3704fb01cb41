import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Tenant } from '../../http/tenant.decorator';
import { CreateConversationDocs, GetConversationDocs } from './conversations.docs';
import { CreateConversationCommand } from '../commands/create-conversation.command';
import { GetConversationQuery } from '../../read-models/conversations/get-conversation.query';
import { ConversationResponse } from './conversation.response';
import { CreateConversationDto } from './create-conversation.dto';

@Controller('v1/conversations')
export class ConversationsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @HttpCode(201)
  @CreateConversationDocs()
  async create(@Tenant() tenantId: string, @Body() body: CreateConversationDto): Promise<ConversationResponse> {
    const state = await this.commands.execute(new CreateConversationCommand(tenantId, body.title ?? null, body.metadata ?? {}, body.concurrency ?? undefined));
    const { id, title, metadata: data, concurrency, createdAt } = state;
    return { id, title, metadata: data, ...(concurrency !== undefined && { concurrency }), createdAt, executions: [] };
  }

  @Get(':id')
  @GetConversationDocs()
  get(@Tenant() tenantId: string, @Param('id') id: string): Promise<ConversationResponse> {
    return this.queries.execute(new GetConversationQuery(tenantId, id));
  }
}
