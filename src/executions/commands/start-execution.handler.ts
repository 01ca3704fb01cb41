import { INSTANCE_ID } from '../../common/instance-id';
import { CONFIG, Config } from '../../config/config';
import { requestSizeProblem } from './request-size';
import { Inject } from '@nestjs/common';
import { CommandHandler, ICommandHandler } from '@nestjs/cqrs';
import { NotFoundError, ServiceUnavailableError, ValidationError } from '../../common/errors/request-errors';
import { nowIso } from '../../common/clock';
import { newId } from '../../common/ids';
import { loadConversation } from '../../conversations/conversation-stream';
import { EVENT_STORE, EventStore, WrongExpectedRevisionError } from '../../event-store/event-store';
import type { RequestLog } from '../../observability/request-context';
import { TracedCommand } from '../../observability/tracing';
import { ProviderRegistry } from '../../providers/provider-registry';
import { decide } from '../domain/execution-decide';
import { ExecutionState, fold } from '../domain/execution-state';
import { executionStream, loadExecution, toNewEvents, toRecorded } from '../execution-stream';
import { ExecutionRunner } from '../runner/execution-runner';
import { QueuedStarts } from '../runner/queued-starts';
import { ConcurrencyPolicy } from '../../common/concurrency-policy';
import { admitExecution } from './admit-execution';
import { preflight } from './capability-preflight';
import { claimKey } from './idempotency-claims';
import { TenantQuota } from './tenant-quota';
import { StartExecutionCommand, StartExecutionResult } from './start-execution.command';

@CommandHandler(StartExecutionCommand)
export class StartExecutionHandler implements ICommandHandler<StartExecutionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly providers: ProviderRegistry,
    private readonly runner: ExecutionRunner,
    private readonly queuedStarts: QueuedStarts,
    private readonly quota: TenantQuota,
    @Inject(CONFIG) private readonly config: Pick<Config, 'limits' | 'executionTimeoutMs'>,
  ) {}

  /** The checks of docs/api.md#executions in their order; nothing is appended until every one has passed. */
  @TracedCommand()
  async execute({ tenantId, request, log }: StartExecutionCommand): Promise<StartExecutionResult> {
    // Nothing is appended for a run this process would no longer drive; a retry reaches another instance.
    if (this.runner.stopping) throw new ServiceUnavailableError('this instance is shutting down; retry shortly');
    const sizeProblem = requestSizeProblem(request, this.config.limits);
    if (sizeProblem) throw new ValidationError(sizeProblem);
    const conversation = await loadConversation(this.store, request.conversationId, tenantId);
    if (!conversation) throw new NotFoundError(`conversation ${request.conversationId} not found`);
    const provider = this.providers.get(request.provider);
    const configProblem = await provider.validateConfig(request.config);
    if (configProblem) throw new ValidationError(configProblem);
    preflight(provider.manifest, request.requiredCapabilities);
    // The tenant's budget (docs/api.md#usage-and-budgets), before anything is appended, the claim included.
    await this.quota.check(tenantId, request.idempotencyKey);

    // Held until the session is registered (or the start fails), so racing starts cannot pass the cap.
    const release = this.runner.reserve(tenantId);
    try {
      return await this.create(tenantId, request, conversation.concurrency, log);
    } finally {
      release();
    }
  }

  private async create(
    tenantId: string,
    request: StartExecutionCommand['request'],
    fallback?: ConcurrencyPolicy,
    log?: RequestLog,
  ): Promise<StartExecutionResult> {
    if (request.idempotencyKey === null) return { state: await this.queue(newId(), tenantId, request, fallback, log), replayed: false };
    const claim = await claimKey(this.store, tenantId, request.idempotencyKey, request, newId());
    const { executionId, won } = claim;
    // Whoever holds the claim, whoever appends run.queued first starts it, so a claimer that died
    // before run.queued never strands the key (rule 3). A replay of an execution that exists is
    // not admitted again: its conversation decided once.
    const exists = !won && (await this.store.streamHead(executionStream(executionId))) !== null;
    const queued = exists
      ? null
      : await this.queue(executionId, tenantId, claim.request, fallback, log).catch((error) => {
          if (error instanceof WrongExpectedRevisionError) return null;
          throw error;
        });
    if (won) return { state: queued ?? (await this.stateAfterQueued(executionId)), replayed: false };
    return { state: (await loadExecution(this.store, executionId))!.state, replayed: true };
  }

  private async queue(
    executionId: string,
    tenantId: string,
    request: StartExecutionCommand['request'],
    fallback?: ConcurrencyPolicy,
    log?: RequestLog,
  ): Promise<ExecutionState> {
    // The request's log lines and span name the execution from here on (and so does its run).
    log?.bindExecutionId(executionId);
    const concurrency = request.concurrency ?? fallback;
    // Its conversation decides first (docs/design.md#concurrency): a refusal appends nothing else.
    const admission = await admitExecution(this.store, {
      tenantId,
      conversationId: request.conversationId,
      executionId,
      concurrency: concurrency ?? 'parallel',
      runningHere: (id) => this.runner.session(id) !== undefined,
    });
    const events = decide({ type: 'queue', data: this.queuedData({ ...request, concurrency }) }, null);
    const occurredAt = nowIso();
    const result = await this.store.append(executionStream(executionId), toNewEvents(executionId, events, { tenantId, occurredAt }), 'no_stream');
    const loaded = {
      state: fold(
        events.map((e) => ({ ...e, sequence: 1, occurredAt })),
        executionId,
      )!,
      tenantId,
      owner: INSTANCE_ID,
      revision: result.nextRevision,
    };
    if (admission.waitsFor.length === 0) this.runner.launch(loaded, log);
    else this.queuedStarts.wait(loaded, admission);
    return loaded.state;
  }

  /** run.queued's data, in its documented key order; a run started without `timeoutMs` gets EXECUTION_TIMEOUT_MS (docs/api.md#deadlines). */
  private queuedData({ timeoutMs, actionTimeoutMs, concurrency, budget, ...request }: StartExecutionCommand['request']) {
    const timeout = timeoutMs ?? this.config.executionTimeoutMs ?? undefined;
    return {
      conversationId: request.conversationId,
      provider: request.provider,
      input: request.input,
      requiredCapabilities: request.requiredCapabilities,
      config: request.config,
      idempotencyKey: request.idempotencyKey,
      ...(timeout !== undefined && { timeoutMs: timeout }),
      ...(actionTimeoutMs !== undefined && { actionTimeoutMs }),
      ...(concurrency !== undefined && { concurrency }),
      ...(request.responses !== undefined && { responses: request.responses }),
      ...(budget !== undefined && { budget }),
    };
  }

  /** The 201 shows the state right after run.queued, even if the run has moved on since. */
  private async stateAfterQueued(executionId: string): Promise<ExecutionState> {
    const [queued] = await this.store.readStream(executionStream(executionId), { limit: 1 });
    return fold([toRecorded(queued)], executionId)!;
  }
}
