import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { CONFIG, Config } from '../../config/config';
import { withExecutionLogContext } from '../../observability/request-context';
import { startExecutionTrace } from '../../observability/tracing';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ConversationHistory } from '../../projections/executions/conversation-history';
import { ProviderRegistry } from '../../providers/provider-registry';
import { offers } from '../commands/capability-preflight';
import { LoadedExecution } from '../execution-stream';
import { ExecutionSession } from './execution-session';

/** The only place that calls providers: one session per execution running in this process. */
@Injectable()
export class ExecutionRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ExecutionRunner');
  private readonly sessions = new Map<string, ExecutionSession>();
  /** Set when shutdown begins: no session starts after the running ones were halted. */
  stopping = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly providers: ProviderRegistry,
    private readonly conversations: ConversationHistory,
    @Inject(CONFIG) private readonly config: Pick<Config, 'storeRetryMs'>,
  ) {}

  /**
   * Starts driving a freshly queued execution. Never fails once run.queued is stored: whatever
   * goes wrong later (the store, the history) ends the run through its session instead.
   */
  launch(loaded: LoadedExecution): void {
    const { state } = loaded;
    if (this.sessions.has(state.id)) return;
    // A start that raced the shutdown stays queued: the next start (or another instance) ends it.
    if (this.stopping) return;
    const provider = this.providers.get(state.provider);
    const history = offers(provider.manifest, 'conversation.history')
      ? () => this.conversations.of(state.conversationId, state.id)
      : async () => [];
    // The run outlives the request that started it: its own log context (with the execution id)
    // and its own trace, linked to the span that launched it.
    const trace = startExecutionTrace({ 'runledger.execution_id': state.id, 'runledger.provider': state.provider });
    const session = withExecutionLogContext(state.id, () =>
      trace.run(() => new ExecutionSession(this.store, loaded, provider, { storeRetryMs: this.config.storeRetryMs, history }, this.logger)),
    );
    this.sessions.set(state.id, session);
    void session.finished.finally(() => {
      trace.span.end();
      this.sessions.delete(state.id);
    });
  }

  session(executionId: string): ExecutionSession | undefined {
    return this.sessions.get(executionId);
  }

  /**
   * Stops every session before the store closes, letting in-flight appends land; what was still
   * running ends with RUNTIME_INTERRUPTED at the next start.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.stopping = true;
    if (this.sessions.size === 0) return;
    this.logger.warn(`shutting down with ${this.sessions.size} execution(s) in flight`);
    await Promise.all([...this.sessions.values()].map((session) => session.halt()));
  }
}
