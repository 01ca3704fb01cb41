import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { HistoryEntry, ProviderRun } from '../provider';
import { LlmSettings } from '../config/provider-settings';
import { ChatSession, LlmProvider } from '../llm/llm-provider';
import { RunConfig } from '../llm/run-config';
import { AnsweredToolCall } from '../llm/tool-calls';
import { TurnOutput, TurnResult } from '../llm/turn-output';
import { openAIClient } from './openai-client';
import { initialMessages, requestParams, toolRoundMessages } from './openai-messages';
import { OpenAIStreamFold } from './openai-stream';

/** Any endpoint that speaks OpenAI's streaming chat completions, through the official SDK. */
export class OpenAICompatibleProvider extends LlmProvider {
  readonly eventNamespace = 'openai';
  private readonly client: OpenAI;

  constructor(settings: LlmSettings) {
    super(settings);
    this.client = openAIClient(settings);
  }

  protected openChat(run: ProviderRun, config: RunConfig, history: HistoryEntry[]): ChatSession {
    return new OpenAIChat(this.client, this.settings, config, initialMessages(config.system, history, run.input.text));
  }
}

class OpenAIChat implements ChatSession {
  constructor(
    private readonly client: OpenAI,
    private readonly settings: LlmSettings,
    private readonly config: RunConfig,
    private readonly messages: ChatCompletionMessageParam[],
  ) {}

  async turn(out: TurnOutput): Promise<TurnResult> {
    const stream = await this.client.chat.completions.create(requestParams(this.settings, this.config, this.messages), { signal: out.signal });
    const fold = new OpenAIStreamFold();
    for await (const chunk of stream) {
      out.chunk();
      await fold.add(chunk, out);
    }
    out.finish();
    await fold.report(out);
    return fold.result();
  }

  addToolResults(turn: TurnResult, answered: AnsweredToolCall[]): void {
    this.messages.push(...toolRoundMessages(turn.text, answered));
  }
}
