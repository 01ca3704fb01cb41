import { Inject, Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { PayloadTooLargeError, ValidationError } from '../common/errors/request-errors';
import { CONFIG, Config } from '../config/config';
import { AppError } from '../common/errors/app-error';
import { CreateConversationCommand } from '../conversations/commands/create-conversation.command';
import { preflight } from '../executions/commands/capability-preflight';
import { StartExecutionCommand } from '../executions/commands/start-execution.command';
import { ProviderRegistry } from '../providers/provider-registry';
import { CreateRequest } from './domain/create-request';
import { responseIdOf, ResponseRef } from './domain/response-id';
import type { ResponseSettings } from './domain/response-types';
import { ResponseReader } from './response-reader';
import type { RequestLog } from '../observability/request-context';

/** Where a config key of the execution came from in the request, for the error's `param`. */
const PARAM_OF_CONFIG: Record<string, string> = {
  model: 'model',
  system: 'instructions',
  temperature: 'temperature',
  maxTokens: 'max_output_tokens',
  tools: 'tools',
};

export const problem = (message: string, param: string | null) => new ValidationError(message, param ? { param } : undefined);

/** A refusal of the start, with `param` naming the request field it is about. */
function withParam(error: unknown): unknown {
  if (!(error instanceof AppError) || error.details?.param) return error;
  const configKey = /^config\.(\w+)/.exec(error.message)?.[1];
  const param =
    error.code === 'PROVIDER_NOT_FOUND'
      ? 'model'
      : error.code === 'NOT_FOUND'
        ? 'conversation'
        : error.code === 'CAPABILITY_UNSUPPORTED'
          ? 'input'
          : configKey
            ? (PARAM_OF_CONFIG[configKey] ?? null)
            : null;
  if (param === null) return error;
  Object.assign(error, { details: { ...error.details, param } });
  return error;
}

/**
 * docs/responses-api.md#create: a new response that is a new execution, in the conversation the
 * request names, the one its previous response belongs to, or a new one.
 */
@Injectable()
export class StartResponse {
  constructor(
    private readonly commands: CommandBus,
    private readonly reader: ResponseReader,
    @Inject(ProviderRegistry) private readonly providers: ProviderRegistry,
    @Inject(CONFIG) private readonly config: Config,
  ) {}

  async start(tenantId: string, request: CreateRequest, log?: RequestLog): Promise<ResponseRef> {
    if (request.model === null) throw problem('model is required: a provider id from GET /v1/providers, or <provider id>/<model>', 'model');
    if (request.userText === '') throw problem('input must contain a user message with text', 'input');
    if (request.conversation !== null && request.previousResponseId !== null) {
      throw problem('conversation and previous_response_id cannot both be given', 'conversation');
    }
    const slash = request.model.indexOf('/');
    const providerId = slash === -1 ? request.model : request.model.slice(0, slash);
    const model = slash === -1 ? null : request.model.slice(slash + 1);
    if (model === '') throw problem('model must be <provider id> or <provider id>/<model>', 'model');
    const sendTools = request.tools !== null && request.tools.length > 0 && request.toolChoice !== 'none';
    const config: Record<string, unknown> = {
      ...(model !== null && { model }),
      ...(request.system !== null && { system: request.system }),
      ...(request.temperature !== null && { temperature: request.temperature }),
      ...(request.maxOutputTokens !== null && { maxTokens: request.maxOutputTokens }),
      ...(sendTools && {
        tools: request.tools!.map((t) => ({ name: t.name, ...(t.description !== null && { description: t.description }), parameters: t.parameters })),
      }),
    };
    const requiredCapabilities = [...request.requiredCapabilities, ...(sendTools ? ['tools'] : [])];
    const conversationId = await this.conversationOf(tenantId, request, providerId, config, requiredCapabilities);
    const settings: ResponseSettings = {
      model: request.model,
      instructions: request.instructions,
      tools: request.tools ?? [],
      toolChoice: request.toolChoice ?? 'auto',
      temperature: request.temperature,
      maxOutputTokens: request.maxOutputTokens,
      metadata: request.metadata ?? {},
      previousResponseId: request.previousResponseId,
      background: request.background,
      input: request.input,
    };
    // run.queued holds the text, the config and these settings: together they fit the bounds of the first two.
    const bytes = Buffer.byteLength(request.userText) + Buffer.byteLength(JSON.stringify(config)) + Buffer.byteLength(JSON.stringify(settings));
    const { maxInputTextBytes, maxConfigBytes } = this.config.limits;
    if (bytes > maxInputTextBytes + maxConfigBytes) {
      throw new PayloadTooLargeError(
        `the request's input, instructions and tools take ${bytes} bytes; at most ${maxInputTextBytes + maxConfigBytes} (MAX_INPUT_TEXT_BYTES + MAX_CONFIG_BYTES)`,
      );
    }
    try {
      const { state } = await this.commands.execute(
        new StartExecutionCommand(
          tenantId,
          {
            conversationId,
            provider: providerId,
            input: { text: request.userText },
            requiredCapabilities,
            config,
            idempotencyKey: null,
            responses: settings as unknown as Record<string, unknown>,
          },
          log,
        ),
      );
      return { executionId: state.id, turn: 1 };
    } catch (error) {
      throw withParam(error);
    }
  }

  /**
   * The conversation the execution goes into. A new one is created only after the provider has
   * accepted the config and passed the preflight, so a refused request leaves nothing behind.
   */
  private async conversationOf(
    tenantId: string,
    request: CreateRequest,
    providerId: string,
    config: Record<string, unknown>,
    required: string[],
  ): Promise<string> {
    if (request.conversation !== null) return request.conversation;
    if (request.previousResponseId !== null) {
      const previous = await this.reader.load(tenantId, request.previousResponseId, 'previous_response_id');
      const { turn, paused } = previous.fold.position;
      if (previous.ref.turn !== turn) {
        const next = responseIdOf({ executionId: previous.ref.executionId, turn: previous.ref.turn + 1 });
        throw problem(`response ${request.previousResponseId} was continued by ${next}: continue from the latest response`, 'previous_response_id');
      }
      if (TERMINAL_OF[previous.events.at(-1)!.type] === undefined) {
        throw problem(
          paused
            ? `response ${request.previousResponseId} waits for function_call_output items (call ids ${previous.fold.calls.map((c) => c.callId).join(', ')})`
            : `response ${request.previousResponseId} has not ended yet`,
          'previous_response_id',
        );
      }
      return previous.fold.current!.conversation.id;
    }
    try {
      const provider = this.providers.get(providerId);
      const configProblem = await provider.validateConfig(config);
      if (configProblem) throw new ValidationError(configProblem);
      preflight(provider.manifest, required);
    } catch (error) {
      throw withParam(error);
    }
    const conversation = await this.commands.execute(new CreateConversationCommand(tenantId, null, {}));
    return conversation.id;
  }
}

const TERMINAL_OF: Record<string, string> = { 'run.completed': 'completed', 'run.failed': 'failed', 'run.cancelled': 'cancelled' };
