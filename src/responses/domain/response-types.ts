/** The Response object and its stream events as the Open Responses specification names them (docs/responses-api.md). */

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface MessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed' | 'incomplete';
  role: 'assistant';
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

export type OutputItem = MessageItem | FunctionCallItem;

export interface FunctionTool {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown>;
  strict: boolean;
}

export interface Usage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/**
 * What a request through /v1/responses said that the execution itself does not use, kept in
 * `run.queued.data.responses` so that every read of the response echoes it (docs/responses-api.md#storage).
 */
export interface ResponseSettings {
  model: string;
  instructions: string | null;
  tools: FunctionTool[];
  toolChoice: 'auto' | 'none';
  temperature: number | null;
  maxOutputTokens: number | null;
  metadata: Record<string, string>;
  previousResponseId: string | null;
  background: boolean;
  /** The request's input items, normalized, without ids (GET /v1/responses/{id}/input_items gives them theirs). */
  input: StoredInputItem[];
}

export interface InputTextPart {
  type: 'input_text';
  text: string;
}

export interface InputMessage {
  type: 'message';
  id: string;
  role: 'user' | 'system' | 'developer';
  status: 'completed';
  content: InputTextPart[];
}

export interface FunctionCallOutputItem {
  type: 'function_call_output';
  id: string;
  call_id: string;
  output: string;
  status: 'completed';
}

export type InputItem = InputMessage | FunctionCallOutputItem;
export type StoredInputItem = Omit<InputMessage, 'id'> | Omit<FunctionCallOutputItem, 'id'>;

export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  completed_at: number | null;
  status: ResponseStatus;
  incomplete_details: { reason: 'max_output_tokens' } | null;
  model: string;
  previous_response_id: string | null;
  instructions: string | null;
  output: OutputItem[];
  error: { code: string; message: string } | null;
  tools: FunctionTool[];
  tool_choice: 'auto' | 'none';
  truncation: 'disabled';
  parallel_tool_calls: boolean;
  text: { format: { type: 'text' } };
  top_p: number;
  presence_penalty: number;
  frequency_penalty: number;
  top_logprobs: number;
  temperature: number;
  reasoning: null;
  user: null;
  usage: Usage | null;
  max_output_tokens: number | null;
  max_tool_calls: null;
  store: true;
  background: boolean;
  service_tier: 'default';
  metadata: Record<string, string>;
  safety_identifier: null;
  prompt_cache_key: null;
  /** Runledger's own: the conversation the execution belongs to. */
  conversation: { id: string };
}

/** One stream event before its sequence number is stamped on. */
export type StreamEventBody =
  | {
      type: 'response.created' | 'response.in_progress' | 'response.completed' | 'response.failed' | 'response.cancelled' | 'response.incomplete';
      response: ResponseObject;
    }
  | { type: 'response.output_item.added' | 'response.output_item.done'; output_index: number; item: OutputItem }
  | { type: 'response.content_part.added' | 'response.content_part.done'; item_id: string; output_index: number; content_index: number; part: OutputText }
  | { type: 'response.output_text.delta'; item_id: string; output_index: number; content_index: number; delta: string; logprobs: never[] }
  | { type: 'response.output_text.done'; item_id: string; output_index: number; content_index: number; text: string; logprobs: never[] }
  | { type: 'response.function_call_arguments.delta'; item_id: string; output_index: number; delta: string }
  | { type: 'response.function_call_arguments.done'; item_id: string; output_index: number; name: string; arguments: string };

export type StreamEvent = StreamEventBody & { sequence_number: number };
