import { schemaProblem } from '../../common/json-schema/schema-checker';
import { LlmSettings } from '../config/provider-settings';
import { KIND_RULES, NO_TEMPERATURE } from '../config/instance-settings';

/** The provider-neutral tool shape every LLM kind maps to its own API (docs/providers.md). */
export interface ToolSpec {
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
  /** JSON Schema of the result; becomes the action's inputSchema. */
  resultSchema?: Record<string, unknown>;
}

/** The execution's `config` over the instance's defaults: what one run sends upstream. */
export interface RunConfig {
  model: string;
  temperature: number | null;
  maxTokens: number | null;
  system: string | null;
  tools: ToolSpec[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const given = (v: unknown) => v !== undefined && v !== null;

/** Both APIs accept this pattern for function names; a stricter one would reject valid tools. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_TOOLS = 128;

async function toolProblem(tool: unknown, where: string): Promise<string | null> {
  if (!isObject(tool)) return `${where} must be an object`;
  for (const key of Object.keys(tool)) {
    if (!['name', 'description', 'parameters', 'resultSchema'].includes(key)) return `${where}.${key} is not a known tool field`;
  }
  if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) return `${where}.name must be 1-64 letters, digits, "_" or "-"`;
  if (given(tool.description) && (typeof tool.description !== 'string' || tool.description === '')) {
    return `${where}.description must be a non-empty string`;
  }
  if (!given(tool.parameters)) return `${where}.parameters is required`;
  const parametersProblem = await schemaProblem(tool.parameters);
  if (parametersProblem) return `${where}.parameters is not a valid JSON Schema 2020-12: ${parametersProblem}`;
  // Both APIs take arguments as one JSON object.
  if ((tool.parameters as Json).type !== 'object') return `${where}.parameters must be a schema of "type": "object"`;
  if (given(tool.resultSchema)) {
    const resultProblem = await schemaProblem(tool.resultSchema);
    if (resultProblem) return `${where}.resultSchema is not a valid JSON Schema 2020-12: ${resultProblem}`;
  }
  return null;
}

/** The shape check of an execution's config for this instance: a message, or null when fine. */
export async function runConfigProblem(config: Json, settings: LlmSettings): Promise<string | null> {
  for (const key of Object.keys(config)) {
    if (!['model', 'temperature', 'maxTokens', 'system', 'tools'].includes(key)) return `config.${key} is not a known ${settings.kind} option`;
  }
  const { model, temperature, maxTokens, system, tools } = config;
  if (given(model) && (typeof model !== 'string' || model === '')) return 'config.model must be a non-empty string';
  const maxTemperature = KIND_RULES[settings.kind].maxTemperature;
  if (given(temperature) && maxTemperature === null) return `config.temperature ${NO_TEMPERATURE}`;
  if (given(temperature) && (typeof temperature !== 'number' || !(temperature >= 0 && temperature <= maxTemperature!))) {
    return `config.temperature must be a number from 0 to ${maxTemperature}`;
  }
  if (given(maxTokens) && !(Number.isInteger(maxTokens) && (maxTokens as number) >= 1 && (maxTokens as number) <= 1_000_000)) {
    return 'config.maxTokens must be an integer from 1 to 1000000';
  }
  if (given(system) && (typeof system !== 'string' || system === '')) return 'config.system must be a non-empty string';
  if (!given(tools)) return null;
  if (!Array.isArray(tools)) return 'config.tools must be an array of tools';
  if (tools.length > 0 && !settings.supports.tools) return `config.tools: provider ${settings.id} is configured without tool support`;
  if (tools.length > MAX_TOOLS) return `config.tools must have at most ${MAX_TOOLS} tools`;
  const names = new Set<string>();
  for (let i = 0; i < tools.length; i++) {
    const problem = await toolProblem(tools[i], `config.tools[${i}]`);
    if (problem) return problem;
    const { name } = tools[i] as ToolSpec;
    if (names.has(name)) return `config.tools[${i}].name "${name}" is already used by another tool`;
    names.add(name);
  }
  return null;
}

/** A config that passed runConfigProblem, over the instance's defaults. */
export function resolveRunConfig(config: Json, settings: LlmSettings): RunConfig {
  const pick = <T>(key: string, fallback: T): T => (given(config[key]) ? (config[key] as T) : fallback);
  return {
    model: pick('model', settings.model),
    temperature: pick('temperature', settings.defaults.temperature),
    maxTokens: pick('maxTokens', settings.defaults.maxTokens),
    system: pick('system', settings.defaults.system),
    tools: pick<ToolSpec[]>('tools', []).map((t) => ({ ...t, description: t.description ?? undefined, resultSchema: t.resultSchema ?? undefined })),
  };
}
