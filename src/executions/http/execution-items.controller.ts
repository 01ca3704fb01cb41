import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Tenant } from '../../http/tenant.decorator';
import { ActionsDocs, ArtifactsDocs, RespondDocs } from '../../openapi/routes/execution-items.docs';
import { RespondToActionCommand } from '../commands/respond-to-action.command';
import { actionView } from '../execution-view';
import { ListActionsQuery } from '../../read-models/actions/list-actions.query';
import { ListArtifactsQuery } from '../../read-models/artifacts/list-artifacts.query';
import { ID } from './executions.controller';

/** The execution's actions (docs/api.md#actions) and artifacts (docs/api.md#artifacts). */
@Controller('v1/executions')
export class ExecutionItemsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get(`${ID}/actions`)
  @ActionsDocs()
  async actions(@Tenant() tenantId: string, @Param('id') id: string) {
    return { actions: await this.queries.execute(new ListActionsQuery(tenantId, id)) };
  }

  @Post(`${ID}/actions/:actionId(^[^:/]+)::respond`)
  @HttpCode(200)
  @RespondDocs()
  async respond(@Tenant() tenantId: string, @Param('id') id: string, @Param('actionId') actionId: string, @Body() body: Record<string, unknown>) {
    return actionView(id, await this.commands.execute(new RespondToActionCommand(tenantId, id, actionId, body)));
  }

  @Get(`${ID}/artifacts`)
  @ArtifactsDocs()
  async artifacts(@Tenant() tenantId: string, @Param('id') id: string) {
    return { artifacts: await this.queries.execute(new ListArtifactsQuery(tenantId, id)) };
  }
}
