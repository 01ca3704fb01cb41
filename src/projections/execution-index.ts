import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore, StoredEvent } from '../event-store/event-store';
import { ExecutionStatus } from '../executions/domain/execution-state';
import { executionIdOf, isExecutionStream } from '../executions/execution-stream';

export interface IndexedExecution {
  id: string;
  tenantId: string;
  conversationId: string;
  provider: string;
  status: ExecutionStatus;
  createdAt: string;
  inputText: string;
  outputText: string | null;
  pendingActions: number;
}

const CHUNK = 5000;

/**
 * A small read model of every execution (who owns it, its conversation, its status), folded from
 * `$all`. It answers what no single stream can: a conversation's executions, earlier turns for
 * `conversation.history`, and which executions were in flight at start (rule 9).
 *
 * Pull-based: every query first reads what was appended since its checkpoint, so a read right
 * after a write sees it (read-your-writes) without a background subscription. It lives in
 * memory and is rebuilt from the log at start.
 */
@Injectable()
export class ExecutionIndex {
  private position = 0;
  private readonly executions = new Map<string, IndexedExecution>();
  private readonly byConversation = new Map<string, IndexedExecution[]>();
  private pulling: Promise<void> = Promise.resolve();

  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** Resolves once every event acknowledged before the call has been applied. */
  catchUp(): Promise<void> {
    // One failed pull (a store hiccup) fails its own callers, not every later query.
    this.pulling = this.pulling.catch(() => undefined).then(() => this.pull());
    return this.pulling;
  }

  async get(executionId: string): Promise<IndexedExecution | undefined> {
    await this.catchUp();
    return this.executions.get(executionId);
  }

  async ofConversation(conversationId: string): Promise<IndexedExecution[]> {
    await this.catchUp();
    return this.byConversation.get(conversationId) ?? [];
  }

  async nonTerminal(): Promise<IndexedExecution[]> {
    await this.catchUp();
    return [...this.executions.values()].filter((e) => !['completed', 'failed', 'cancelled'].includes(e.status));
  }

  private async pull(): Promise<void> {
    for (;;) {
      const events = await this.store.readAll({ after: this.position, limit: CHUNK });
      for (const event of events) this.apply(event);
      if (events.length > 0) this.position = events[events.length - 1].position;
      if (events.length < CHUNK) return;
    }
  }

  private apply(event: StoredEvent): void {
    if (!isExecutionStream(event.streamId)) return;
    const id = executionIdOf(event.streamId);
    if (event.type === 'run.queued') {
      const data = event.data as { conversationId: string; provider: string; input: { text: string } };
      const entry: IndexedExecution = {
        id,
        tenantId: event.metadata.tenantId,
        conversationId: data.conversationId,
        provider: data.provider,
        status: 'queued',
        createdAt: event.occurredAt,
        inputText: data.input.text,
        outputText: null,
        pendingActions: 0,
      };
      this.executions.set(id, entry);
      const list = this.byConversation.get(data.conversationId) ?? [];
      list.push(entry);
      this.byConversation.set(data.conversationId, list);
      return;
    }
    const entry = this.executions.get(id);
    if (!entry) return;
    switch (event.type) {
      case 'run.started':
        entry.status = 'running';
        break;
      case 'action.required':
        entry.pendingActions += 1;
        entry.status = 'requires_action';
        break;
      case 'action.responded':
        entry.pendingActions -= 1;
        if (entry.pendingActions === 0) entry.status = 'running';
        break;
      case 'output.text.done':
        entry.outputText = (event.data as { text: string }).text;
        break;
      case 'run.completed':
        entry.status = 'completed';
        break;
      case 'run.failed':
        entry.status = 'failed';
        break;
      case 'run.cancelled':
        entry.status = 'cancelled';
        break;
    }
  }
}
