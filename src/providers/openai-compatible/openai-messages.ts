import type { ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { HistoryEntry } from '../provider';
import { LlmSettings } from '../config/provider-settings';
import { RunConfig } from '../llm/run-config';
import { AnsweredToolCall } from '../llm/tool-calls';

/** System prompt, then the conversation's earlier turns, then this execution's input. */
export function initialMessages(system: string | null, history: HistoryEntry[], text: string): ChatCompletionMessageParam[] {
  return [
    ...(system ? [{ role: 'system' as const, content: system }] : []),
    ...history.flatMap((turn): ChatCompletionMessageParam[] => [
      { role: 'user', content: turn.input.text },
      // A turn that ended without text leaves only its question.
      ...(turn.outputText ? [{ role: 'assistant' as const, content: turn.outputText }] : []),
    ]),
    { role: 'user', content: text },
  ];
}

/** The assistant's tool calls as it made them, then one tool message per call (docs/providers.md). */
export function toolRoundMessages(text: string, answered: AnsweredToolCall[]): ChatCompletionMessageParam[] {
  return [
    {
      role: 'assistant',
      content: text || null,
      tool_calls: answered.map((call) => ({ id: call.callId, type: 'function', function: { name: call.name, arguments: call.rawArguments } })),
    },
    ...answered.map((call): ChatCompletionMessageParam => ({ role: 'tool', tool_call_id: call.callId, content: call.result })),
  ];
}

/** One streaming request: usage asked for in the stream when the endpoint takes stream_options. */
export function requestParams(settings: LlmSettings, config: RunConfig, messages: ChatCompletionMessageParam[]): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = { model: config.model, messages: [...messages], stream: true };
  if (settings.supports.streamUsage) params.stream_options = { include_usage: true };
  if (config.temperature !== null) params.temperature = config.temperature;
  if (config.maxTokens !== null) {
    if (settings.supports.maxCompletionTokens) params.max_completion_tokens = config.maxTokens;
    else params.max_tokens = config.maxTokens;
  }
  if (config.tools.length > 0) {
    params.tools = config.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, parameters: tool.parameters, ...(tool.description ? { description: tool.description } : {}) },
    }));
  }
  return params;
}
