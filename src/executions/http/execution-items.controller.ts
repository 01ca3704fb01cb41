import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Tenant } from '../../http/tenant.decorator';
import { RespondToActionCommand } from '../commands/respond-to-action.command';
import { actionView } from '../execution-view';
import { GetExecutionQuery } from '../queries/get-execution.query';
import { ID } from './executions.controller';

/** The execution's actions (§6) and artifacts (§7). */
@Controller('v1/executions')
export class ExecutionItemsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get(`${ID}/actions`)
  async actions(@Tenant() tenantId: string, @Param('id') id: string) {
    const state = await this.queries.execute(new GetExecutionQuery(tenantId, id));
    return { actions: state.actions.map((a) => actionView(id, a)) };
  }

  @Post(`${ID}/actions/:actionId([^:/]+)::respond`)
  @HttpCode(200)
  async respond(
    @Tenant() tenantId: string,
    @Param('id') id: string,
    @Param('actionId') actionId: string,
    @Body() body: Record<string, unknown>,
  ) {
    return actionView(id, await this.commands.execute(new RespondToActionCommand(tenantId, id, actionId, body)));
  }

  @Get(`${ID}/artifacts`)
  async artifacts(@Tenant() tenantId: string, @Param('id') id: string) {
    const state = await this.queries.execute(new GetExecutionQuery(tenantId, id));
    return { artifacts: state.artifacts };
  }
}
