import type { LoggedEvent, QueuedData as LoggedQueued } from './execution-log';
import { defaultSettings } from './default-settings';
import { functionCallItemId, messageItemId, responseIdOf } from './response-id';
import type {
  FunctionCallItem,
  MessageItem,
  OutputItem,
  ResponseObject,
  ResponseSettings,
  ResponseStatus,
  StoredInputItem,
  StreamEvent,
  StreamEventBody,
} from './response-types';

type QueuedData = LoggedQueued & { responses?: ResponseSettings };

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A provider's own word that it stopped at the token limit (docs/providers.md#executions-on-an-llm-provider). */
const stoppedAtLimit = (data: { name: string; payload: unknown }) => {
  const reason = (data.payload as { reason?: unknown } | null)?.reason;
  return (data.name === 'finish_reason' && reason === 'length') || (data.name === 'stop_reason' && reason === 'max_tokens');
};

/**
 * Folds an execution's events into one of its responses and that response's stream events
 * (docs/responses-api.md#events). Pure and incremental: the events of a prefix of the log are a
 * prefix of the events of the whole log, so a sequence number names the same event in every
 * replay and `starting_after` resumes exactly.
 *
 * Turns: turn 1 starts at `run.queued`. A turn pauses (its response `completed`) once every
 * function call the provider announced for one model answer (`provider.event` `tool_calls`, else
 * the single call) is an action; the first `action.responded` after a pause starts the next turn.
 */
export class ResponseFold {
  private turn = 0;
  private paused = false;
  private expectedCalls: number | null = null;
  private callsSeen = 0;
  private settings: ResponseSettings | null = null;
  private conversationId = '';
  private response: ResponseObject | null = null;
  private openMessage: { index: number; item: MessageItem } | null = null;
  private atLimit = false;
  private nextSequence = 0;
  /** The turn's function calls, pending until answered: the continuation needs them. */
  readonly calls: { actionId: string; callId: string }[] = [];
  /** The target turn's input when an answer started it: each function output, in the order they were accepted. */
  readonly outputs: { callId: string; output: string }[] = [];
  /** Every tool-call action of the execution, by action id, and whether it was answered. */
  private readonly toolActions = new Map<string, { callId: string; answered: boolean }>();
  private _ended = false;

  constructor(
    private readonly executionId: string,
    private readonly target: number,
  ) {}

  /** The target turn's response; null while the log has not reached it. */
  get current(): ResponseObject | null {
    return this.response && structuredClone(this.response);
  }

  /** The target turn has ended: its stream has nothing more to say. */
  get ended(): boolean {
    return this._ended;
  }

  /** The turn the log has reached, and whether it waits for function outputs. */
  get position(): { turn: number; paused: boolean } {
    return { turn: this.turn, paused: this.paused };
  }

  /** The input items of the request that started the execution. */
  get settingsInput(): StoredInputItem[] {
    return structuredClone(this.settings?.input ?? []);
  }

  /** The target turn's function calls that still wait for their output. */
  get pendingCalls(): { actionId: string; callId: string }[] {
    return this.calls.filter((call) => !this.toolActions.get(call.actionId)?.answered);
  }

  apply(event: LoggedEvent): StreamEvent[] {
    const out: StreamEventBody[] = [];
    this.step(event, out);
    return out.map((body) => ({ ...body, sequence_number: this.nextSequence++ }));
  }

  private get active(): boolean {
    return this.turn === this.target && !this._ended;
  }

  private step(event: LoggedEvent, out: StreamEventBody[]): void {
    switch (event.type) {
      case 'run.queued': {
        const data = event.data as unknown as QueuedData;
        this.conversationId = data.conversationId;
        this.settings = data.responses ?? defaultSettings(data);
        this.beginTurn(event, 'queued', out);
        return;
      }
      case 'run.started':
        if (this.active) this.setStatus('in_progress', 'response.in_progress', out);
        return;
      case 'output.text.delta':
        if (this.active) this.textDelta(event.data.delta, out);
        return;
      case 'provider.event':
        if (event.data.name === 'tool_calls') this.expectedCalls = (event.data.payload as { callIds?: unknown[] } | null)?.callIds?.length ?? null;
        if (this.active && stoppedAtLimit(event.data)) this.atLimit = true;
        return;
      case 'action.required': {
        if (!event.data.tool) return;
        this.toolActions.set(event.data.actionId, { callId: event.data.tool.callId, answered: false });
        const active = this.active;
        if (active) this.functionCall(event, out);
        this.callsSeen += 1;
        if (this.callsSeen < (this.expectedCalls ?? 1)) return;
        this.paused = true;
        if (active) this.end(event, 'completed', 'response.completed', out);
        return;
      }
      case 'action.responded': {
        if (this.paused) {
          this.paused = false;
          this.beginTurn(event, 'in_progress', out);
        }
        const action = this.toolActions.get(event.data.actionId);
        if (!action) return;
        action.answered = true;
        const value = event.data.response.value;
        if (this.turn === this.target) this.outputs.push({ callId: action.callId, output: typeof value === 'string' ? value : JSON.stringify(value ?? null) });
        return;
      }
      case 'run.completed':
        if (!this.active) return;
        this.closeMessage('completed', out);
        this.response!.usage = event.data.usage && {
          input_tokens: event.data.usage.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: event.data.usage.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: event.data.usage.inputTokens + event.data.usage.outputTokens,
        };
        if (this.atLimit) {
          this.response!.incomplete_details = { reason: 'max_output_tokens' };
          this.end(event, 'incomplete', 'response.incomplete', out);
        } else this.end(event, 'completed', 'response.completed', out);
        return;
      case 'run.failed':
        if (!this.active) return;
        this.closeMessage('incomplete', out);
        this.response!.error = { code: event.data.error.code, message: event.data.error.message };
        this.end(event, 'failed', 'response.failed', out);
        return;
      case 'run.cancelled':
        if (!this.active) return;
        this.closeMessage('incomplete', out);
        this.end(event, 'cancelled', 'response.cancelled', out);
        return;
      default:
        return;
    }
  }

  private beginTurn(event: LoggedEvent, status: ResponseStatus, out: StreamEventBody[]): void {
    this.turn += 1;
    this.expectedCalls = null;
    this.callsSeen = 0;
    if (this.turn !== this.target) return;
    const settings = this.settings!;
    this.response = {
      id: responseIdOf({ executionId: this.executionId, turn: this.turn }),
      object: 'response',
      created_at: seconds(event.occurredAt),
      completed_at: null,
      status,
      incomplete_details: null,
      model: settings.model,
      previous_response_id: this.turn === 1 ? settings.previousResponseId : responseIdOf({ executionId: this.executionId, turn: this.turn - 1 }),
      instructions: settings.instructions,
      output: [],
      error: null,
      tools: settings.tools,
      tool_choice: settings.toolChoice,
      truncation: 'disabled',
      parallel_tool_calls: true,
      text: { format: { type: 'text' } },
      top_p: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      top_logprobs: 0,
      temperature: settings.temperature ?? 1,
      reasoning: null,
      user: null,
      usage: null,
      max_output_tokens: settings.maxOutputTokens,
      max_tool_calls: null,
      store: true,
      background: settings.background,
      service_tier: 'default',
      metadata: settings.metadata,
      safety_identifier: null,
      prompt_cache_key: null,
      conversation: { id: this.conversationId },
    };
    out.push({ type: 'response.created', response: structuredClone(this.response) });
    if (status === 'in_progress') out.push({ type: 'response.in_progress', response: structuredClone(this.response) });
  }

  private setStatus(status: ResponseStatus, type: 'response.in_progress', out: StreamEventBody[]): void {
    this.response!.status = status;
    out.push({ type, response: structuredClone(this.response!) });
  }

  private add(item: OutputItem, out: StreamEventBody[]): number {
    const index = this.response!.output.push(item) - 1;
    out.push({ type: 'response.output_item.added', output_index: index, item: structuredClone(item) });
    return index;
  }

  private textDelta(delta: string, out: StreamEventBody[]): void {
    if (!this.openMessage) {
      const item: MessageItem = {
        type: 'message',
        id: messageItemId(this.executionId, this.nextSequence),
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      const index = this.add(item, out);
      item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] });
      out.push({ type: 'response.content_part.added', item_id: item.id, output_index: index, content_index: 0, part: structuredClone(item.content[0]) });
      this.openMessage = { index, item };
    }
    const { index, item } = this.openMessage;
    item.content[0].text += delta;
    out.push({ type: 'response.output_text.delta', item_id: item.id, output_index: index, content_index: 0, delta, logprobs: [] });
  }

  private closeMessage(status: MessageItem['status'], out: StreamEventBody[]): void {
    if (!this.openMessage) return;
    const { index, item } = this.openMessage;
    this.openMessage = null;
    const part = item.content[0];
    out.push({ type: 'response.output_text.done', item_id: item.id, output_index: index, content_index: 0, text: part.text, logprobs: [] });
    out.push({ type: 'response.content_part.done', item_id: item.id, output_index: index, content_index: 0, part: structuredClone(part) });
    item.status = status;
    out.push({ type: 'response.output_item.done', output_index: index, item: structuredClone(item) });
  }

  private functionCall(event: Extract<LoggedEvent, { type: 'action.required' }>, out: StreamEventBody[]): void {
    this.closeMessage('completed', out);
    const tool = event.data.tool!;
    const args = JSON.stringify(tool.arguments ?? {});
    const item: FunctionCallItem = {
      type: 'function_call',
      id: functionCallItemId(this.executionId, event.sequence),
      call_id: tool.callId,
      name: tool.name,
      arguments: '',
      status: 'in_progress',
    };
    const index = this.add(item, out);
    item.arguments = args;
    out.push({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: index, delta: args });
    out.push({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: index, name: tool.name, arguments: args });
    item.status = 'completed';
    out.push({ type: 'response.output_item.done', output_index: index, item: structuredClone(item) });
    this.calls.push({ actionId: event.data.actionId, callId: tool.callId });
  }

  private end(
    event: LoggedEvent,
    status: ResponseStatus,
    type: 'response.completed' | 'response.failed' | 'response.cancelled' | 'response.incomplete',
    out: StreamEventBody[],
  ): void {
    const response = this.response!;
    response.status = status;
    if (status === 'completed') response.completed_at = seconds(event.occurredAt);
    this._ended = true;
    out.push({ type, response: structuredClone(response) });
  }
}
