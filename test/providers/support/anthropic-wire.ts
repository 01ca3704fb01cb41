import { SseFrame } from './fake-upstream';

/**
 * Anthropic's Messages streaming as its API reference documents it: named events message_start,
 * content_block_start / content_block_delta (text_delta, input_json_delta) / content_block_stop,
 * message_delta (stop_reason, cumulative usage), message_stop; ping anywhere; error mid-stream.
 */
const ev = (event: string, data: Record<string, unknown>): SseFrame => ({ event, data: { type: event, ...data } });

export const messageStart = (input: number, cacheCreation = 0, cacheRead = 0): SseFrame =>
  ev('message_start', {
    message: {
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      content: [],
      model: 'claude-test',
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: input, cache_creation_input_tokens: cacheCreation, cache_read_input_tokens: cacheRead, output_tokens: 1 },
    },
  });

export const ping: SseFrame = ev('ping', {});

export const textBlock = (index: number, parts: string[]): SseFrame[] => [
  ev('content_block_start', { index, content_block: { type: 'text', text: '' } }),
  ...parts.map((text) => ev('content_block_delta', { index, delta: { type: 'text_delta', text } })),
  ev('content_block_stop', { index }),
];

export const toolUseBlock = (index: number, id: string, name: string, json: string): SseFrame[] => {
  const middle = Math.floor(json.length / 2);
  return [
    ev('content_block_start', { index, content_block: { type: 'tool_use', id, name, input: {} } }),
    ...[json.slice(0, middle), json.slice(middle)].map((partial_json) =>
      ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }),
    ),
    ev('content_block_stop', { index }),
  ];
};

export const messageDelta = (stopReason: string, outputTokens: number): SseFrame =>
  ev('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: outputTokens } });

export const messageStop: SseFrame = ev('message_stop', {});

export const streamError = (type: string, message: string): SseFrame => ev('error', { error: { type, message } });

/** A whole text answer. */
export const textAnswer = (
  parts: string[],
  usage: { input: number; output: number; cacheCreation?: number; cacheRead?: number } = { input: 10, output: 3 },
): SseFrame[] => [
  messageStart(usage.input, usage.cacheCreation, usage.cacheRead),
  ping,
  ...textBlock(0, parts),
  messageDelta('end_turn', usage.output),
  messageStop,
];

/** Tool calls, optionally after some text, ending with stop_reason tool_use. */
export const toolUseAnswer = (calls: { id: string; name: string; json: string }[], text = ''): SseFrame[] => {
  const offset = text ? 1 : 0;
  return [
    messageStart(20),
    ...(text ? textBlock(0, [text]) : []),
    ...calls.flatMap((call, i) => toolUseBlock(i + offset, call.id, call.name, call.json)),
    messageDelta('tool_use', 7),
    messageStop,
  ];
};
