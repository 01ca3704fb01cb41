import { BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { RateLimitedError } from '../../common/errors/request-errors';
import { CONFIG, Config } from '../../config/config';
import { executionLogger, linesOn, type RequestLog } from '../../observability/request-context';
import { startExecutionTrace } from '../../observability/tracing';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { ConversationHistory } from '../../read-models/executions/conversation-history';
import { ProviderRegistry } from '../../providers/provider-registry';
import { offers } from '../commands/capability-preflight';
import { LoadedExecution } from '../execution-stream';
import { ExecutionSession } from './execution-session';

/** The only place that calls providers: one session per execution running in this process. */
@Injectable()
export class ExecutionRunner implements BeforeApplicationShutdown {
  private readonly logger = new Logger('ExecutionRunner');
  private readonly sessions = new Map<string, ExecutionSession>();
  /** Per tenant: its sessions here plus the starts that hold a place for one. */
  private readonly running = new Map<string, number>();
  /** Set when shutdown begins: no session starts after the running ones were halted. */
  stopping = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly providers: ProviderRegistry,
    private readonly conversations: ConversationHistory,
    @Inject(CONFIG) private readonly config: Pick<Config, 'storeRetryMs' | 'limits'>,
  ) {}

  /**
   * Holds one of the tenant's MAX_RUNNING_PER_TENANT places for a start; the returned function
   * gives it back (a launched session holds its own). Refuses with 429 when none is left: one
   * tenant's flood of starts never takes the runner from the others.
   */
  reserve(tenantId: string): () => void {
    const limit = this.config.limits.maxRunningPerTenant;
    if ((this.running.get(tenantId) ?? 0) >= limit) {
      throw new RateLimitedError(`at most ${limit} executions may run at once for a tenant (MAX_RUNNING_PER_TENANT); retry when one has ended`);
    }
    this.count(tenantId, +1);
    let released = false;
    return () => {
      if (!released) this.count(tenantId, -1);
      released = true;
    };
  }

  private count(tenantId: string, delta: number): void {
    const next = (this.running.get(tenantId) ?? 0) + delta;
    if (next <= 0) this.running.delete(tenantId);
    else this.running.set(tenantId, next);
  }

  /**
   * Starts driving a freshly queued execution. Never fails once run.queued is stored: whatever
   * goes wrong later (the store, the history) ends the run through its session instead.
   */
  launch(loaded: LoadedExecution, startedBy?: RequestLog): void {
    const { state } = loaded;
    if (this.sessions.has(state.id)) return;
    // A start that raced the shutdown stays queued: the next start (or another instance) ends it.
    if (this.stopping) return;
    const provider = this.providers.get(state.provider);
    const history = offers(provider.manifest, 'conversation.history') ? () => this.conversations.of(state.conversationId, state.id) : async () => [];
    // The run outlives the request that started it: its own logger (with the execution id and the
    // starting request's id) and its own trace, linked to the span that launched it.
    const trace = startExecutionTrace({ 'runledger.execution_id': state.id, 'runledger.provider': state.provider });
    const lines = linesOn(executionLogger(state.id, startedBy), 'ExecutionRunner');
    const session = trace.run(
      () =>
        new ExecutionSession(
          this.store,
          loaded,
          provider,
          {
            storeRetryMs: this.config.storeRetryMs,
            history,
            maxEvents: this.config.limits.maxEventsPerExecution,
            maxEventBytes: this.config.limits.maxEventBytes,
          },
          lines,
        ),
    );
    this.sessions.set(state.id, session);
    this.count(loaded.tenantId, +1);
    void session.finished.finally(() => {
      trace.span.end();
      this.sessions.delete(state.id);
      this.count(loaded.tenantId, -1);
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
    const began = Date.now();
    await Promise.all([...this.sessions.values()].map((session) => session.halt()));
    // A shutdown past its deadline then says whether the runner or a later step held it.
    this.logger.log(`halted the execution(s) in flight in ${Date.now() - began} ms`);
  }
}
