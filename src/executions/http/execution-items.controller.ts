import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Tenant } from '../../http/tenant.decorator';
import { ActionsDocs, ArtifactsDocs, RespondDocs } from './execution-items.docs';
import { RespondToActionCommand } from '../commands/respond-to-action.command';
import { actionView } from '../execution-view';
import { ListActionsQuery } from '../../read-models/actions/list-actions.query';
import { ListArtifactsQuery } from '../../read-models/artifacts/list-artifacts.query';
import { ActionListResponse, ActionResponse } from './action.response';
import { ArtifactListResponse } from './artifact.response';
import { ID } from './executions.controller';
import { RespondToActionDto } from './respond-to-action.dto';

/** The execution's actions (docs/api.md#actions) and artifacts (docs/api.md#artifacts). */
@Controller('v1/executions')
export class ExecutionItemsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get(`${ID}/actions`)
  @ActionsDocs()
  async actions(@Tenant() tenantId: string, @Param('id') id: string): Promise<ActionListResponse> {
    return { actions: await this.queries.execute(new ListActionsQuery(tenantId, id)) };
  }

  @Post(`${ID}/actions/:actionId(^[^:/]+)::respond`)
  @HttpCode(200)
  @RespondDocs()
  async respond(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Param('actionId') actionId: string,
    @Body() body: RespondToActionDto,
  ): Promise<ActionResponse> {
    // A union type, so the global pipe leaves the body alone: which DTO applies depends on the action (action-response.ts).
    return actionView(id, await this.commands.execute(new RespondToActionCommand(tenantId, id, actionId, body as unknown as Record<string, unknown>)));
  }

  @Get(`${ID}/artifacts`)
  @ArtifactsDocs()
  async artifacts(@Tenant() tenantId: string, @Param('id') id: string): Promise<ArtifactListResponse> {
    return { artifacts: await this.queries.execute(new ListArtifactsQuery(tenantId, id)) };
  }
}
