import { SseFrame } from './fake-upstream';

/**
 * OpenAI's streaming chat completions as its API reference documents them: `data:` lines of
 * chat.completion.chunk objects, the usage chunk (empty choices) when stream_options asks for
 * it, then `data: [DONE]`.
 */
const base = { id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 1767225600, model: 'gpt-test', system_fingerprint: null };

export const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): SseFrame => ({
  data: { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] },
});

export const usageChunk = (prompt: number, completion: number): SseFrame => ({
  data: { ...base, choices: [], usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion } },
});

export const done: SseFrame = { data: '[DONE]' };

/** A whole text answer: the role chunk, one chunk per part, the finish, usage, [DONE]. */
export function textAnswer(parts: string[], usage: [number, number] | null = [10, parts.length], finishReason = 'stop'): SseFrame[] {
  return [
    chunk({ role: 'assistant', content: '' }),
    ...parts.map((content) => chunk({ content })),
    chunk({}, finishReason),
    ...(usage ? [usageChunk(...usage)] : []),
    done,
  ];
}

/** Tool calls as streamed: id, type and name in a call's first chunk, its arguments in pieces after. */
export function toolCallAnswer(calls: { id: string; name: string; args: string }[], usage: [number, number] = [20, 5], text = ''): SseFrame[] {
  const frames: SseFrame[] = [chunk({ role: 'assistant', content: null })];
  if (text) frames.push(chunk({ content: text }));
  calls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const middle = Math.floor(call.args.length / 2);
    for (const piece of [call.args.slice(0, middle), call.args.slice(middle)]) {
      if (piece) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  frames.push(chunk({}, 'tool_calls'), usageChunk(...usage), done);
  return frames;
}

/** An error object in the stream, as the API sends one mid-response. */
export const streamError = (message: string, type = 'server_error'): SseFrame => ({ data: { error: { message, type, param: null, code: null } } });
