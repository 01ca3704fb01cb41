import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { RawToolCall } from '../llm/tool-calls';
import { TurnOutput, TurnResult } from '../llm/turn-output';

type Block =
  { type: 'text' } | { type: 'tool_use'; id: string; name: string; initial: unknown; json: string } | { type: 'thinking'; text: string } | { type: 'other' };

/** Token counts as the stream reports them: message_start first, message_delta's cumulative ones after. */
interface Counts {
  input: number;
  cacheCreation: number;
  cacheRead: number;
  output: number;
}

/**
 * Folds the Messages stream of one response: text_delta goes out as it comes, tool_use blocks
 * are assembled from their input_json_delta pieces, usage and stop_reason come at the end.
 */
export class AnthropicStreamFold {
  private text = '';
  private stopReason: string | null = null;
  private counts: Counts | null = null;
  private readonly blocks = new Map<number, Block>();

  async add(event: RawMessageStreamEvent, out: TurnOutput): Promise<void> {
    switch (event.type) {
      case 'message_start':
        this.count(event.message.usage);
        break;
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'tool_use') this.blocks.set(event.index, { type: 'tool_use', id: block.id, name: block.name, initial: block.input, json: '' });
        else if (block.type === 'thinking') this.blocks.set(event.index, { type: 'thinking', text: block.thinking ?? '' });
        else if (block.type === 'text') {
          this.blocks.set(event.index, { type: 'text' });
          await this.emitText(block.text, out);
        } else this.blocks.set(event.index, { type: 'other' });
        break;
      }
      case 'content_block_delta': {
        const block = this.blocks.get(event.index);
        const delta = event.delta;
        if (delta.type === 'text_delta') await this.emitText(delta.text, out);
        else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') block.json += delta.partial_json;
        else if (delta.type === 'thinking_delta' && block?.type === 'thinking') block.text += delta.thinking;
        break;
      }
      case 'message_delta':
        if (event.delta.stop_reason) this.stopReason = event.delta.stop_reason;
        this.count(event.usage);
        break;
    }
  }

  /** The notable native events of the response, under the `anthropic` namespace. */
  async report(out: TurnOutput): Promise<void> {
    for (const block of this.blocks.values()) {
      if (block.type === 'thinking' && block.text) await out.event('thinking', { text: block.text });
    }
    if (this.stopReason) await out.event('stop_reason', { reason: this.stopReason });
  }

  result(): TurnResult {
    const toolCalls: RawToolCall[] = [...this.blocks.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([, block]) =>
        // Without input_json_delta pieces the input is the (usually empty) object of the block's start.
        block.type === 'tool_use' ? [{ callId: block.id, name: block.name, rawArguments: block.json || JSON.stringify(block.initial ?? {}) }] : [],
      );
    const c = this.counts;
    // Cache reads and writes are input the model read too; the binding has one input count.
    const usage = c ? { inputTokens: c.input + c.cacheCreation + c.cacheRead, outputTokens: c.output } : null;
    return { text: this.text, toolCalls, usage };
  }

  private async emitText(text: string, out: TurnOutput): Promise<void> {
    if (!text) return;
    this.text += text;
    await out.text(text);
  }

  /** Later counts replace earlier ones field by field: message_delta's are cumulative. */
  private count(
    usage:
      | { input_tokens?: number | null; cache_creation_input_tokens?: number | null; cache_read_input_tokens?: number | null; output_tokens?: number | null }
      | null
      | undefined,
  ): void {
    if (!usage) return;
    const prev = this.counts ?? { input: 0, cacheCreation: 0, cacheRead: 0, output: 0 };
    this.counts = {
      input: usage.input_tokens ?? prev.input,
      cacheCreation: usage.cache_creation_input_tokens ?? prev.cacheCreation,
      cacheRead: usage.cache_read_input_tokens ?? prev.cacheRead,
      output: usage.output_tokens ?? prev.output,
    };
  }
}
