import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { AppError } from '../common/errors/app-error';
import { CancelExecutionCommand } from '../executions/commands/cancel-execution.command';
import type { RequestLog } from '../observability/request-context';
import { CreateRequest } from './domain/create-request';
import { ResponseRef } from './domain/response-id';
import type { InputItem, ResponseObject } from './domain/response-types';
import { ContinueResponse } from './continue-response';
import { ResponseReader } from './response-reader';
import { problem, StartResponse } from './start-response';

/** What the routes of /v1/responses do, on executions (docs/responses-api.md). */
@Injectable()
export class ResponseActions {
  constructor(
    private readonly commands: CommandBus,
    private readonly reader: ResponseReader,
    private readonly starter: StartResponse,
    private readonly continuer: ContinueResponse,
  ) {}

  /** Function outputs continue the previous response's execution; anything else starts one. */
  create(tenantId: string, request: CreateRequest, log?: RequestLog): Promise<ResponseRef> {
    if (request.functionOutputs.length > 0) {
      if (request.previousResponseId === null)
        throw problem('function_call_output items need previous_response_id: the response whose calls they answer', 'previous_response_id');
      return this.continuer.continue(tenantId, request);
    }
    if (request.echoedCalls.length > 0) throw problem('function_call items are accepted only beside the function_call_output items that answer them', 'input');
    return this.starter.start(tenantId, request, log);
  }

  /**
   * The execution's cancel (one cleanup, one `run.cancelled`). A response that has ended is
   * answered as it is, as OpenAI does, also when the run ended while the cancel was on its way.
   */
  async cancel(tenantId: string, id: string): Promise<ResponseObject> {
    const loaded = await this.reader.load(tenantId, id);
    if (loaded.fold.ended) return loaded.fold.current!;
    try {
      await this.commands.execute(new CancelExecutionCommand(tenantId, loaded.ref.executionId, 'cancelled through POST /v1/responses/{id}/cancel'));
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'INVALID_STATE')) throw error;
    }
    return (await this.reader.load(tenantId, id)).fold.current!;
  }

  /** The items the response's turn took as input: the request's, or the function outputs that started it. */
  async inputItems(tenantId: string, id: string, page: { limit: number; order: 'asc' | 'desc'; after: string | null }) {
    const { ref, fold } = await this.reader.load(tenantId, id);
    const key = `${ref.executionId}_${ref.turn}`;
    let items: InputItem[];
    if (ref.turn === 1) {
      const settings = fold.settingsInput;
      items = settings.map((item, i) => ({ ...item, id: `${item.type === 'message' ? 'msg' : 'fco'}_in_${key}_${i}` }) as InputItem);
    } else {
      items = fold.outputs.map((o, i) => ({
        type: 'function_call_output',
        id: `fco_in_${key}_${i}`,
        call_id: o.callId,
        output: o.output,
        status: 'completed',
      }));
    }
    if (page.order === 'desc') items.reverse();
    const start = page.after === null ? 0 : items.findIndex((item) => item.id === page.after) + 1;
    if (page.after !== null && start === 0) throw problem(`after ${page.after} is not an item of ${id}`, 'after');
    const data = items.slice(start, start + page.limit);
    return { object: 'list' as const, data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: start + page.limit < items.length };
  }
}
