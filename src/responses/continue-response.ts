import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { canonicalJson } from '../common/canonical-json';
import { RespondToActionCommand } from '../executions/commands/respond-to-action.command';
import { CreateRequest } from './domain/create-request';
import { ResponseRef } from './domain/response-id';
import type { ResponseObject } from './domain/response-types';
import { ResponseReader } from './response-reader';
import { problem } from './start-response';

/** The request's settings that are the execution's: a continuation may repeat them, not change them. */
function sameSettings(request: CreateRequest, previous: ResponseObject): void {
  const fixed: [string, unknown, unknown][] = [
    ['model', request.model, previous.model],
    ['instructions', request.instructions, previous.instructions],
    ['tools', request.tools, previous.tools],
    ['tool_choice', request.toolChoice, previous.tool_choice],
    ['temperature', request.temperature, previous.temperature],
    ['max_output_tokens', request.maxOutputTokens, previous.max_output_tokens],
    ['metadata', request.metadata, previous.metadata],
  ];
  for (const [param, given, kept] of fixed) {
    if (given !== null && canonicalJson(given) !== canonicalJson(kept)) {
      throw problem(`${param} is the execution's own and cannot change on a continuation (it was ${JSON.stringify(kept)})`, param);
    }
  }
  if (request.userText !== '' || (request.system !== null && request.instructions === null)) {
    throw problem('a continuation carries function_call_output items only: the execution is waiting for them', 'input');
  }
  if (request.conversation !== null) throw problem('conversation cannot be given with previous_response_id', 'conversation');
}

/**
 * docs/responses-api.md#function-calls: function outputs answer the execution's pending tool-call
 * actions (`action.responded`), and the same execution goes on as the response's next turn.
 */
@Injectable()
export class ContinueResponse {
  constructor(
    private readonly commands: CommandBus,
    private readonly reader: ResponseReader,
  ) {}

  async continue(tenantId: string, request: CreateRequest): Promise<ResponseRef> {
    const previous = await this.reader.load(tenantId, request.previousResponseId!, 'previous_response_id');
    const { turn, paused } = previous.fold.position;
    if (previous.ref.turn !== turn || !paused) {
      throw problem(`response ${request.previousResponseId} is not waiting for function call outputs`, 'previous_response_id');
    }
    sameSettings(request, previous.fold.current!);
    const pending = previous.fold.pendingCalls;
    const given = new Set(request.functionOutputs.map((o) => o.callId));
    const expected = pending.map((c) => c.callId);
    if (given.size !== expected.length || expected.some((id) => !given.has(id))) {
      throw problem(`the function_call_output items must answer exactly the pending call ids: ${expected.join(', ') || '(none left)'}`, 'input');
    }
    const open = new Set([...previous.fold.calls.map((c) => c.callId)]);
    const stray = request.echoedCalls.find((id) => !open.has(id));
    if (stray) throw problem(`function_call ${stray} is not a call of ${request.previousResponseId}`, 'input');
    for (const output of request.functionOutputs) {
      const { actionId } = pending.find((c) => c.callId === output.callId)!;
      await this.commands.execute(new RespondToActionCommand(tenantId, previous.ref.executionId, actionId, { value: output.output }));
    }
    return { executionId: previous.ref.executionId, turn: turn + 1 };
  }
}
