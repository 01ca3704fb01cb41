import { RESPONSE_BOUNDS as B } from './request-bounds';
import type { FunctionTool, StoredInputItem } from './response-types';

/** A refusal of the request with the body field it is about (`param` in the OpenAI error shape). */
export class RequestProblem extends Error {
  constructor(
    message: string,
    readonly param: string | null,
  ) {
    super(message);
    this.name = 'RequestProblem';
  }
}

/** POST /v1/responses, checked and in Runledger's terms (docs/responses-api.md#create). */
export interface CreateRequest {
  model: string | null;
  /** The user text: every user message's text, joined by blank lines. */
  userText: string;
  /** instructions, then every system and developer message. */
  system: string | null;
  instructions: string | null;
  functionOutputs: { callId: string; output: string }[];
  /** `function_call` items the client sent back (echoes of the previous output), by call id. */
  echoedCalls: string[];
  tools: FunctionTool[] | null;
  toolChoice: 'auto' | 'none' | null;
  temperature: number | null;
  maxOutputTokens: number | null;
  metadata: Record<string, string> | null;
  previousResponseId: string | null;
  conversation: string | null;
  stream: boolean;
  background: boolean;
  /** Capabilities the input needs (`input.image`), for the preflight. */
  requiredCapabilities: string[];
  input: StoredInputItem[];
}

const KNOWN = new Set([
  'model',
  'input',
  'instructions',
  'tools',
  'tool_choice',
  'temperature',
  'max_output_tokens',
  'metadata',
  'previous_response_id',
  'conversation',
  'stream',
  'background',
  'store',
  'parallel_tool_calls',
  'truncation',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const length = (s: string) => [...s].length;
const fail = (message: string, param: string | null): never => {
  throw new RequestProblem(message, param);
};

function optionalString(body: Record<string, unknown>, key: string, max: number): string | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '') fail(`${key} must be a non-empty string`, key);
  if (length(value as string) > max) fail(`${key} must be at most ${max} characters`, key);
  return value as string;
}

function optionalBoolean(body: Record<string, unknown>, key: string): boolean | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'boolean') fail(`${key} must be a boolean`, key);
  return value as boolean;
}

function optionalNumber(body: Record<string, unknown>, key: string, min: number, max: number, integer: boolean): number | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    fail(`${key} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`, key);
  }
  return value as number;
}

/** Message content: a string, or input_text parts (an input_image part asks the preflight for `input.image`). */
function contentText(content: unknown, param: string, needs: Set<string>): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content) || content.length === 0) return fail(`${param} must be a string or a non-empty array of content parts`, param);
  if (content.length > B.maxContentParts) fail(`${param} may have at most ${B.maxContentParts} parts`, param);
  const texts: string[] = [];
  content.forEach((part, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(part)) return fail(`${at} must be an object`, at);
    if (part.type === 'input_image') return void needs.add('input.image');
    if (part.type !== 'input_text') return fail(`${at}.type must be input_text (or input_image)`, `${at}.type`);
    if (typeof part.text !== 'string') return fail(`${at}.text must be a string`, `${at}.text`);
    const extra = Object.keys(part).find((k) => k !== 'type' && k !== 'text');
    if (extra) fail(`${at}.${extra} is not supported`, `${at}.${extra}`);
    texts.push(part.text);
  });
  return texts.join('');
}

interface ParsedInput {
  user: string[];
  system: string[];
  outputs: { callId: string; output: string }[];
  echoedCalls: string[];
  items: StoredInputItem[];
  needs: Set<string>;
}

function parseInput(input: unknown): ParsedInput {
  const parsed: ParsedInput = { user: [], system: [], outputs: [], echoedCalls: [], items: [], needs: new Set() };
  if (typeof input === 'string') {
    if (input === '') fail('input must not be empty', 'input');
    parsed.user.push(input);
    parsed.items.push({ type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: input }] });
    return parsed;
  }
  if (!Array.isArray(input) || input.length === 0) return fail('input is required: a string or a non-empty array of items', 'input');
  if (input.length > B.maxInputItems) fail(`input may have at most ${B.maxInputItems} items`, 'input');
  input.forEach((item, i) => {
    const at = `input[${i}]`;
    if (!isObject(item)) return fail(`${at} must be an object`, at);
    const type = item.type ?? 'message';
    if (type === 'message') {
      const extra = Object.keys(item).find((k) => !['type', 'role', 'content', 'id', 'status'].includes(k));
      if (extra) fail(`${at}.${extra} is not supported`, `${at}.${extra}`);
      const role = item.role;
      if (role === 'assistant') {
        return fail(`${at}: assistant messages cannot be replayed into an execution; continue with previous_response_id or conversation instead`, `${at}.role`);
      }
      if (role !== 'user' && role !== 'system' && role !== 'developer') return fail(`${at}.role must be user, system, developer or assistant`, `${at}.role`);
      const text = contentText(item.content, `${at}.content`, parsed.needs);
      (role === 'user' ? parsed.user : parsed.system).push(text);
      parsed.items.push({ type: 'message', role, status: 'completed', content: [{ type: 'input_text', text }] });
      return;
    }
    if (type === 'function_call_output') {
      const extra = Object.keys(item).find((k) => !['type', 'call_id', 'output', 'id', 'status'].includes(k));
      if (extra) fail(`${at}.${extra} is not supported`, `${at}.${extra}`);
      if (typeof item.call_id !== 'string' || item.call_id === '') return fail(`${at}.call_id must be a non-empty string`, `${at}.call_id`);
      if (typeof item.output !== 'string') return fail(`${at}.output must be a string`, `${at}.output`);
      if (length(item.output) > B.maxOutputLength) fail(`${at}.output must be at most ${B.maxOutputLength} characters`, `${at}.output`);
      if (parsed.outputs.some((o) => o.callId === item.call_id)) fail(`${at}.call_id ${item.call_id} is answered twice`, `${at}.call_id`);
      parsed.outputs.push({ callId: item.call_id, output: item.output });
      parsed.items.push({ type: 'function_call_output', call_id: item.call_id, output: item.output, status: 'completed' });
      return;
    }
    if (type === 'function_call') {
      // The client sending the model's own call back, as stateless code does: only with the call it continues.
      if (typeof item.call_id !== 'string') return fail(`${at}.call_id must be a string`, `${at}.call_id`);
      parsed.echoedCalls.push(item.call_id);
      return;
    }
    return fail(`${at}.type ${JSON.stringify(type)} is not supported: message, function_call_output or function_call`, `${at}.type`);
  });
  return parsed;
}

function parseTools(value: unknown): FunctionTool[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) return fail('tools must be an array', 'tools');
  if (value.length > B.maxTools) fail(`tools may have at most ${B.maxTools} entries`, 'tools');
  return value.map((tool, i): FunctionTool => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) return fail(`${at} must be an object`, at);
    if (tool.type !== 'function') return fail(`${at}.type must be function: built-in tools are not supported`, `${at}.type`);
    const extra = Object.keys(tool).find((k) => !['type', 'name', 'description', 'parameters', 'strict'].includes(k));
    if (extra) fail(`${at}.${extra} is not supported`, `${at}.${extra}`);
    if (typeof tool.name !== 'string' || tool.name === '') return fail(`${at}.name must be a non-empty string`, `${at}.name`);
    const description = tool.description ?? null;
    if (description !== null && (typeof description !== 'string' || length(description) > B.maxDescriptionLength)) {
      fail(`${at}.description must be a string of at most ${B.maxDescriptionLength} characters`, `${at}.description`);
    }
    const parameters = tool.parameters ?? { type: 'object', properties: {} };
    if (!isObject(parameters)) return fail(`${at}.parameters must be a JSON Schema object`, `${at}.parameters`);
    if (tool.strict === true) fail(`${at}.strict: true is not supported (no provider enforces the schema)`, `${at}.strict`);
    if (tool.strict !== undefined && tool.strict !== null && tool.strict !== false) fail(`${at}.strict must be a boolean`, `${at}.strict`);
    return { type: 'function', name: tool.name, description: description as string | null, parameters, strict: false };
  });
}

function parseMetadata(value: unknown): Record<string, string> | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) return fail('metadata must be an object of strings', 'metadata');
  const entries = Object.entries(value);
  if (entries.length > B.maxMetadataKeys) fail(`metadata may have at most ${B.maxMetadataKeys} keys`, 'metadata');
  for (const [key, v] of entries) {
    if (length(key) > B.maxMetadataKeyLength) fail(`metadata keys must be at most ${B.maxMetadataKeyLength} characters`, 'metadata');
    if (typeof v !== 'string' || length(v) > B.maxMetadataValueLength)
      fail(`metadata.${key} must be a string of at most ${B.maxMetadataValueLength} characters`, `metadata.${key}`);
  }
  return value as Record<string, string>;
}

/** `conversation` as OpenAI spells it: an id, or `{ id }`. */
function conversationId(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const id = isObject(value) && Object.keys(value).join() === 'id' ? value.id : value;
  if (typeof id !== 'string' || id === '' || length(id) > 512) return fail('conversation must be a conversation id, or { id }', 'conversation');
  return id;
}

/** Checks the body's shape and maps it; refuses what no provider here can honour. */
export function parseCreateRequest(body: unknown): CreateRequest {
  if (!isObject(body)) return fail('the body must be a JSON object', null);
  const unknown = Object.keys(body).find((k) => !KNOWN.has(k));
  if (unknown) fail(`${unknown} is not supported by this server`, unknown);
  if (body.store === false) fail('store: false is not supported: every response is stored (it is an execution)', 'store');
  if (body.store !== undefined && body.store !== null && body.store !== true) fail('store must be a boolean', 'store');
  if (body.parallel_tool_calls === false) fail('parallel_tool_calls: false is not supported', 'parallel_tool_calls');
  if (body.truncation !== undefined && body.truncation !== null && body.truncation !== 'disabled') fail('truncation must be disabled', 'truncation');
  const toolChoice = body.tool_choice ?? null;
  if (toolChoice !== null && toolChoice !== 'auto' && toolChoice !== 'none') fail('tool_choice must be auto or none', 'tool_choice');
  const input = parseInput(body.input);
  const instructions = optionalString(body, 'instructions', B.maxInstructionsLength);
  const system = [...(instructions === null ? [] : [instructions]), ...input.system];
  const stream = optionalBoolean(body, 'stream') ?? false;
  return {
    model: optionalString(body, 'model', B.maxModelLength),
    userText: input.user.join('\n\n'),
    system: system.length > 0 ? system.join('\n\n') : null,
    instructions,
    functionOutputs: input.outputs,
    echoedCalls: input.echoedCalls,
    tools: parseTools(body.tools),
    toolChoice: toolChoice as CreateRequest['toolChoice'],
    temperature: optionalNumber(body, 'temperature', 0, 2, false),
    maxOutputTokens: optionalNumber(body, 'max_output_tokens', 1, 1_000_000, true),
    metadata: parseMetadata(body.metadata),
    previousResponseId: optionalString(body, 'previous_response_id', 512),
    conversation: conversationId(body.conversation),
    stream,
    background: optionalBoolean(body, 'background') ?? false,
    requiredCapabilities: [...input.needs],
    input: input.items,
  };
}
