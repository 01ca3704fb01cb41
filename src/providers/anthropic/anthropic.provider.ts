import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { HistoryEntry, ProviderRun } from '../provider';
import { LlmSettings } from '../config/provider-settings';
import { ChatSession, LlmProvider } from '../llm/llm-provider';
import { RunConfig } from '../llm/run-config';
import { AnsweredToolCall } from '../llm/tool-calls';
import { TurnOutput, TurnResult } from '../llm/turn-output';
import { anthropicClient } from './anthropic-client';
import { initialMessages, requestParams, toolRoundMessages } from './anthropic-messages';
import { AnthropicStreamFold } from './anthropic-stream';

/** Anthropic's Messages API with streaming, through the official SDK. */
export class AnthropicProvider extends LlmProvider {
  readonly eventNamespace = 'anthropic';
  private readonly client: Anthropic;

  constructor(settings: LlmSettings) {
    super(settings);
    this.client = anthropicClient(settings);
  }

  protected openChat(run: ProviderRun, config: RunConfig, history: HistoryEntry[]): ChatSession {
    return new AnthropicChat(this.client, config, initialMessages(history, run.input.text));
  }
}

class AnthropicChat implements ChatSession {
  constructor(
    private readonly client: Anthropic,
    private readonly config: RunConfig,
    private readonly messages: MessageParam[],
  ) {}

  async turn(out: TurnOutput): Promise<TurnResult> {
    const stream = await this.client.messages.create(requestParams(this.config, this.messages), { signal: out.signal });
    const fold = new AnthropicStreamFold();
    for await (const event of stream) {
      out.chunk();
      await fold.add(event, out);
    }
    out.finish();
    await fold.report(out);
    return fold.result();
  }

  addToolResults(turn: TurnResult, answered: AnsweredToolCall[]): void {
    this.messages.push(...toolRoundMessages(turn.text, answered));
  }
}
