import { randomUUID } from 'node:crypto';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { RawToolCall } from '../llm/tool-calls';
import { TurnOutput, TurnResult, Usage } from '../llm/turn-output';

/** Reasoning text as OpenAI-compatible servers stream it (vLLM/DeepSeek, Ollama/OpenRouter); not in the SDK's types. */
type ReasoningDelta = { reasoning_content?: unknown; reasoning?: unknown };

/**
 * Folds the chat.completion.chunk sequence of one response: content deltas go out as they come,
 * tool calls are assembled by index (id and name arrive once, arguments in pieces), usage comes
 * in the last chunk (choices empty) when asked for.
 */
export class OpenAIStreamFold {
  private text = '';
  private refusal = '';
  private reasoning = '';
  private finishReason: string | null = null;
  private usage: Usage | null = null;
  private readonly calls: { id: string; name: string; arguments: string }[] = [];

  async add(chunk: ChatCompletionChunk, out: TurnOutput): Promise<void> {
    if (chunk.usage) this.usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
    // One choice is asked for (no `n`): only index 0 exists.
    const choice = chunk.choices?.find((c) => c.index === 0) ?? chunk.choices?.[0];
    if (!choice) return;
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.refusal === 'string') this.refusal += delta.refusal;
    const { reasoning_content, reasoning } = delta as ReasoningDelta;
    const thought = typeof reasoning_content === 'string' ? reasoning_content : typeof reasoning === 'string' ? reasoning : '';
    this.reasoning += thought;
    for (const call of delta.tool_calls ?? []) {
      const slot = (this.calls[call.index] ??= { id: '', name: '', arguments: '' });
      if (call.id) slot.id = call.id;
      if (call.function?.name) slot.name = call.function.name;
      if (call.function?.arguments) slot.arguments += call.function.arguments;
    }
    if (typeof delta.content === 'string' && delta.content) {
      this.text += delta.content;
      await out.text(delta.content);
    }
  }

  /** The notable native events of the response, under the `openai` namespace. */
  async report(out: TurnOutput): Promise<void> {
    if (this.reasoning) await out.event('reasoning', { text: this.reasoning });
    if (this.refusal) await out.event('refusal', { text: this.refusal });
    if (this.finishReason) await out.event('finish_reason', { reason: this.finishReason });
  }

  result(): TurnResult {
    const toolCalls: RawToolCall[] = this.calls
      .filter((call) => call !== undefined)
      // A server that sends no call id still needs one to pair the result with the call.
      .map((call) => ({ callId: call.id || `call_${randomUUID()}`, name: call.name, rawArguments: call.arguments }));
    return { text: this.text, toolCalls, usage: this.usage };
  }
}
