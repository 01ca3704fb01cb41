import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ValidationError } from '../../common/errors/request-errors';
import { AllowQuery, integerParam } from '../../http/strict-query';
import { Tenant } from '../../http/tenant.decorator';
import { parseCreateRequest, RequestProblem } from '../domain/create-request';
import { responseIdOf } from '../domain/response-id';
import type { ResponseObject } from '../domain/response-types';
import { ResponseActions } from '../response-actions';
import { ResponseReader } from '../response-reader';
import { ResponseStreamResponder } from './response-stream.responder';
import { CancelResponseDocs, CreateResponseDocs, GetResponseDocs, InputItemsDocs } from './responses.docs';
import type { InputItemListResponse } from './response.response';
import { requestLogOf } from '../../observability/request-context';

/** `stream` as a query flag: only the two spellings the SDKs send. */
function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new ValidationError(`${name} must be true or false`, { param: name });
}

/** Runs `wait` with a signal that aborts when the client goes away: nobody is left to answer. */
async function whileConnected<T>(request: FastifyRequest, wait: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const socket = request.raw.socket;
  const abort = () => controller.abort();
  socket.once('close', abort);
  try {
    return await wait(controller.signal);
  } finally {
    socket.off('close', abort);
  }
}

/** docs/responses-api.md: the OpenAI Responses API as a second binding of executions. */
@Controller('v1/responses')
export class ResponsesController {
  constructor(
    private readonly actions: ResponseActions,
    private readonly reader: ResponseReader,
    private readonly stream: ResponseStreamResponder,
  ) {}

  @Post()
  @HttpCode(200)
  @CreateResponseDocs()
  async create(@Tenant() tenantId: string, @Body() body: Record<string, unknown>, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    let parsed;
    try {
      parsed = parseCreateRequest(body);
    } catch (error) {
      if (error instanceof RequestProblem) throw new ValidationError(error.message, error.param ? { param: error.param } : undefined);
      throw error;
    }
    const id = responseIdOf(await this.actions.create(tenantId, parsed, requestLogOf(request.raw)));
    if (parsed.stream) return this.stream.respond(reply, tenantId, id, -1);
    const loaded = parsed.background
      ? await this.reader.loadAsCreated(tenantId, id)
      : await whileConnected(request, (signal) => this.reader.settle(tenantId, id, signal));
    await reply.status(200).send(loaded.fold.current);
  }

  @Get(':id')
  @GetResponseDocs()
  @AllowQuery('stream', 'starting_after')
  async get(@Tenant() tenantId: string, @Param('id') id: string, @Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const startingAfter = integerParam(query.starting_after, 'starting_after', 0);
    if (flag(query.stream, 'stream')) return this.stream.respond(reply, tenantId, id, startingAfter ?? -1);
    if (startingAfter !== undefined) throw new ValidationError('starting_after needs stream=true', { param: 'starting_after' });
    await reply.status(200).send((await this.reader.load(tenantId, id)).fold.current);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @CancelResponseDocs()
  async cancel(@Tenant() tenantId: string, @Param('id') id: string, @Body() body: Record<string, unknown> | undefined): Promise<ResponseObject> {
    const field = Object.keys(body ?? {})[0];
    if (field !== undefined) throw new ValidationError(`${field} is not supported: the cancel takes no body`, { param: field });
    return this.actions.cancel(tenantId, id);
  }

  @Get(':id/input_items')
  @InputItemsDocs()
  @AllowQuery('limit', 'order', 'after')
  async inputItems(@Tenant() tenantId: string, @Param('id') id: string, @Query() query: Record<string, unknown>): Promise<InputItemListResponse> {
    const limit = integerParam(query.limit, 'limit', 1, 100) ?? 20;
    const order = query.order ?? 'desc';
    if (order !== 'asc' && order !== 'desc') throw new ValidationError('order must be asc or desc', { param: 'order' });
    const after = typeof query.after === 'string' ? query.after : null;
    return this.actions.inputItems(tenantId, id, { limit, order, after });
  }
}
