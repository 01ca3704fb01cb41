import type { QueuedData } from './execution-log';
import type { FunctionTool, ResponseSettings } from './response-types';

/**
 * The settings of an execution started through /v1/executions, read as a response
 * (docs/responses-api.md#ids): what its config says, in the Responses API's words.
 */
export function defaultSettings(data: QueuedData): ResponseSettings {
  const config = data.config as { model?: unknown; system?: unknown; temperature?: unknown; maxTokens?: unknown; tools?: unknown };
  const tools = Array.isArray(config.tools) ? (config.tools as { name: string; description?: string; parameters: Record<string, unknown> }[]) : [];
  return {
    model: typeof config.model === 'string' ? `${data.provider}/${config.model}` : data.provider,
    instructions: typeof config.system === 'string' ? config.system : null,
    tools: tools.map((t): FunctionTool => ({ type: 'function', name: t.name, description: t.description ?? null, parameters: t.parameters, strict: false })),
    toolChoice: 'auto',
    temperature: typeof config.temperature === 'number' ? config.temperature : null,
    maxOutputTokens: typeof config.maxTokens === 'number' ? config.maxTokens : null,
    metadata: {},
    previousResponseId: null,
    background: true,
    input: [{ type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: data.input.text }] }],
  };
}
