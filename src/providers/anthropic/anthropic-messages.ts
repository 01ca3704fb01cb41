import type { MessageCreateParamsStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { HistoryEntry } from '../provider';
import { RunConfig } from '../llm/run-config';
import { AnsweredToolCall } from '../llm/tool-calls';

/** The Messages API requires max_tokens; the instance default is 4096 unless set. */
const FALLBACK_MAX_TOKENS = 4096;

/** The conversation's earlier turns, then this execution's input (the system prompt is a parameter). */
export function initialMessages(history: HistoryEntry[], text: string): MessageParam[] {
  return [
    ...history.flatMap((turn): MessageParam[] => [
      { role: 'user', content: turn.input.text },
      ...(turn.outputText ? [{ role: 'assistant' as const, content: turn.outputText }] : []),
    ]),
    { role: 'user', content: text },
  ];
}

/** The assistant's turn with its tool_use blocks, then one user turn holding every tool_result. */
export function toolRoundMessages(text: string, answered: AnsweredToolCall[]): MessageParam[] {
  return [
    {
      role: 'assistant',
      content: [
        ...(text ? [{ type: 'text' as const, text }] : []),
        ...answered.map((call) => ({ type: 'tool_use' as const, id: call.callId, name: call.name, input: call.arguments })),
      ],
    },
    {
      role: 'user',
      // Parallel results travel together, in one user message, as the API requires.
      content: answered.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.callId, content: call.result })),
    },
  ];
}

export function requestParams(config: RunConfig, messages: MessageParam[]): MessageCreateParamsStreaming {
  const params: MessageCreateParamsStreaming = {
    model: config.model,
    max_tokens: config.maxTokens ?? FALLBACK_MAX_TOKENS,
    messages: [...messages],
    stream: true,
  };
  if (config.system) params.system = config.system;
  // No temperature: API version 2026-10-21 rejects it, and the config checks refuse one.
  if (config.tools.length > 0) {
    params.tools = config.tools.map((tool) => ({
      name: tool.name,
      input_schema: tool.parameters as { type: 'object' },
      ...(tool.description ? { description: tool.description } : {}),
    }));
  }
  return params;
}
