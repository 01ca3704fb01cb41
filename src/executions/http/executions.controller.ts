import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import type { FastifyReply } from 'fastify';
import { CurrentRequestLog } from '../../http/request-log.decorator';
import { Tenant } from '../../http/tenant.decorator';
import type { RequestLog } from '../../observability/request-context';
import { CancelExecutionDocs, GetExecutionDocs, StartExecutionDocs } from './executions.docs';
import { CancelExecutionCommand } from '../commands/cancel-execution.command';
import { StartExecutionCommand } from '../commands/start-execution.command';
import { executionView } from '../execution-view';
import { GetExecutionQuery } from '../../read-models/executions/get-execution.query';
import { CancelExecutionDto } from './cancel-execution.dto';
import { ExecutionResponse } from './execution.response';
import { StartExecutionDto } from './start-execution.dto';

/**
 * Ids are opaque but never contain ':' or '/', so `abc:cancel` cannot match the plain routes.
 * Written `(^…)` because that is the one regex form @nestjs/swagger strips from a path; the
 * router drops a leading `^` from a parameter's regex, so it matches the same.
 */
export const ID = ':id(^[^:/]+)';

@Controller('v1/executions')
export class ExecutionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Post()
  @StartExecutionDocs()
  async start(
    @Tenant() tenantId: string,
    @Body() body: StartExecutionDto,
    @Res({ passthrough: true }) reply: FastifyReply,
    @CurrentRequestLog() log: RequestLog | undefined,
  ): Promise<ExecutionResponse> {
    const { state, replayed } = await this.commands.execute(
      new StartExecutionCommand(
        tenantId,
        {
          conversationId: body.conversationId,
          provider: body.provider,
          input: { text: body.input.text },
          requiredCapabilities: [...new Set(body.requiredCapabilities ?? [])],
          config: body.config ?? {},
          idempotencyKey: body.idempotencyKey ?? null,
          ...(body.timeoutMs != null && { timeoutMs: body.timeoutMs }),
          ...(body.actionTimeoutMs != null && { actionTimeoutMs: body.actionTimeoutMs }),
          ...(body.concurrency != null && { concurrency: body.concurrency }),
          ...(body.budget != null && { budget: { maxTotalTokens: body.budget.maxTotalTokens } }),
        },
        log,
      ),
    );
    reply.status(replayed ? 200 : 201);
    if (replayed) reply.header('Idempotent-Replayed', 'true');
    return executionView(state);
  }

  @Get(ID)
  @GetExecutionDocs()
  async get(@Tenant() tenantId: string, @Param('id') id: string): Promise<ExecutionResponse> {
    return executionView(await this.queries.execute(new GetExecutionQuery(tenantId, id)));
  }

  @Post(`${ID}::cancel`)
  @HttpCode(200)
  @CancelExecutionDocs()
  async cancel(@Tenant() tenantId: string, @Param('id') id: string, @Body() body: CancelExecutionDto): Promise<ExecutionResponse> {
    return executionView(await this.commands.execute(new CancelExecutionCommand(tenantId, id, body.reason ?? null)));
  }
}
