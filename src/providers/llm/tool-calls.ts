import { ProviderFailure, ProviderRun } from '../provider';
import { ToolSpec } from './run-config';

/** A tool call as the model streamed it: arguments still the raw JSON text. */
export interface RawToolCall {
  callId: string;
  name: string;
  rawArguments: string;
}

export interface ToolCall extends RawToolCall {
  arguments: unknown;
}

/** A call with its answer, encoded as the tool result the API expects. */
export interface AnsweredToolCall extends ToolCall {
  result: string;
}

/** Parses every call's arguments before any action exists: one bad call fails the run with none half-asked. */
export function parseToolCalls(calls: RawToolCall[]): ToolCall[] {
  return calls.map((call) => {
    // Some servers stream no argument text at all for a tool without parameters.
    if (call.rawArguments.trim() === '') return { ...call, arguments: {} };
    try {
      return { ...call, arguments: JSON.parse(call.rawArguments) };
    } catch {
      throw new ProviderFailure('PROVIDER_ERROR', `the model called tool "${call.name}" with arguments that are not valid JSON`);
    }
  });
}

/** A string result goes back as it is; anything else as JSON (docs/providers.md). */
export const encodeToolResult = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/**
 * Each call becomes an `input` action at once, so parallel calls are parallel actions; the model
 * hears back only when every one is answered. A `tool_calls` event names them all first, so a
 * reader of the log knows when the last of one answer's calls has been asked
 * (docs/providers.md#executions-on-an-llm-provider).
 */
export async function answerToolCalls(run: ProviderRun, calls: ToolCall[], tools: ToolSpec[]): Promise<AnsweredToolCall[]> {
  await run.emitEvent('tool_calls', { callIds: calls.map((call) => call.callId) });
  return Promise.all(
    calls.map(async (call) => {
      const spec = tools.find((t) => t.name === call.name);
      const response = await run.requireAction({
        kind: 'input',
        prompt: `The model called the tool "${call.name}": answer with its result`,
        inputSchema: spec?.resultSchema ?? null,
        tool: { callId: call.callId, name: call.name, arguments: call.arguments },
      });
      return { ...call, result: encodeToolResult(response.value) };
    }),
  );
}
