import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { interruptReason } from '../../conversations/domain/concurrency';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { Processor } from '../../event-store/processor';
import { Projector } from '../../read-models/projector';
import { endedAmong } from '../commands/admit-execution';
import { CancelExecutionCommand } from '../commands/cancel-execution.command';
import { decideAndAppend } from '../commands/decide-and-append';
import { hasEnded } from '../commands/end-execution';
import { runDeadline } from '../domain/execution-deadlines';
import { ExecutionStateError } from '../domain/execution-errors';
import { TERMINAL_EVENT_TYPES } from '../domain/execution-events';
import { LoadedExecution, executionIdOf, loadExecution } from '../execution-stream';
import { DeadlineTimers } from './deadline-timer';
import { ExecutionRunner } from './execution-runner';

const PROJECTED_WAIT_MS = 5000;

/** A queued execution this instance starts once the executions before it have ended. */
interface Waiting {
  loaded: LoadedExecution;
  waitsFor: Set<string>;
  /** Another instance queued it and is gone: whoever appends run.started first runs it. */
  adopted: boolean;
  deadline: DeadlineTimers;
  /** The log position of the latest end it waited for: its history must include it. */
  reach: number;
  /** Everything it waited for has ended; it starts once the read models hold those ends. */
  starting: boolean;
}

export interface WaitPlan {
  waitsFor: string[];
  /** Cancelled on its behalf first (`interrupt`), through the cancel path. */
  interrupts: string[];
}

/**
 * docs/design.md#concurrency: the executions admitted behind others (`enqueue`, `interrupt`) wait
 * here, without a session, until every execution they wait for has ended; one follower of the
 * log's terminal events serves them all. Their deadline still counts from `run.queued`. What a
 * stopped instance left waiting is adopted by the restart sweep (here or on another instance).
 */
@Injectable()
export class QueuedStarts implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('QueuedStarts');
  private readonly waiting = new Map<string, Waiting>();
  private readonly stopping = new AbortController();

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly runner: ExecutionRunner,
    private readonly commands: CommandBus,
    @Optional() private readonly projector?: Projector,
  ) {}

  /** Follows from the head before any bootstrap (the sweep adopts through `wait`), so no end is missed. */
  async onModuleInit(): Promise<void> {
    const processor = new Processor(this.store, {
      name: 'QueuedStarts',
      writes: 'queued starts',
      filter: { streamPrefixes: ['execution-'], types: [...TERMINAL_EVENT_TYPES] },
      from: await this.store.headPosition(),
      handle: ({ events }) => events.forEach((event) => this.ended(executionIdOf(event.streamId), event.position)),
    });
    void processor.run(this.stopping.signal);
  }

  beforeApplicationShutdown(): void {
    this.stopping.abort();
    for (const entry of this.waiting.values()) entry.deadline.clear();
    this.waiting.clear();
  }

  isWaiting(executionId: string): boolean {
    return this.waiting.has(executionId);
  }

  /** Holds a queued execution until what it waits for has ended; once only per execution. */
  wait(loaded: LoadedExecution, plan: WaitPlan, adopted = false): void {
    const { id } = loaded.state;
    if (this.stopping.signal.aborted || this.waiting.has(id) || this.runner.session(id)) return;
    const entry: Waiting = { loaded, waitsFor: new Set(plan.waitsFor), adopted, deadline: new DeadlineTimers(), reach: 0, starting: false };
    this.waiting.set(id, entry);
    const due = runDeadline(loaded.state);
    if (due !== null) entry.deadline.at(due, (now) => void this.expire(id, now));
    for (const target of plan.interrupts) this.interrupt(target, id);
    // What ended before the entry was registered is not in the follower's future: ask the streams.
    void this.recheck(entry).catch((error) => this.logger.warn(`execution ${id}: could not check what it waits for: ${(error as Error).message}`));
  }

  /** Takes it out before a cancel ends it here, so it is never started under the cancel. */
  withdraw(executionId: string): void {
    const entry = this.waiting.get(executionId);
    if (!entry) return;
    entry.deadline.clear();
    this.waiting.delete(executionId);
  }

  private async recheck(entry: Waiting): Promise<void> {
    const ids = [...entry.waitsFor];
    if (ids.length === 0) return this.ready(entry);
    const head = await this.store.headPosition();
    const ended = await endedAmong(
      this.store,
      ids.map((executionId) => ({ executionId })),
    );
    for (const id of ended) this.ended(id, head);
  }

  private ended(executionId: string, position: number): void {
    // It ended while waiting (cancelled, or past its deadline): nothing to start.
    this.withdraw(executionId);
    for (const entry of [...this.waiting.values()]) {
      if (!entry.waitsFor.delete(executionId)) continue;
      entry.reach = Math.max(entry.reach, position);
      if (entry.waitsFor.size === 0) this.ready(entry);
    }
  }

  /**
   * Its own: the session appends run.started, as for any start. Adopted: several instances may
   * have adopted it, so run.started is appended first and only its winner runs it.
   */
  private ready(entry: Waiting): void {
    const { id } = entry.loaded.state;
    if (this.waiting.get(id) !== entry || entry.starting) return;
    entry.starting = true;
    // Its history is read from the read models: they must hold the ends it waited for, which
    // another instance may have written (docs/design.md#concurrency).
    void this.projected(entry.reach).then(() => {
      // Withdrawn meanwhile (a cancel here): it is the cancel's to end.
      if (this.waiting.get(id) !== entry) return;
      this.withdraw(id);
      if (!entry.adopted) return this.runner.launch(entry.loaded);
      return this.startAdopted(id).catch((error) => this.logger.warn(`execution ${id}: could not start it: ${(error as Error).message}`));
    });
  }

  /** Bounded: a stuck projection delays the start, it does not keep it queued for ever. */
  private async projected(position: number): Promise<void> {
    if (!this.projector || position === 0) return;
    await this.projector.waitFor(position, PROJECTED_WAIT_MS).catch(() => undefined);
  }

  private async startAdopted(executionId: string): Promise<void> {
    const loaded = await loadExecution(this.store, executionId);
    if (!loaded || loaded.state.status !== 'queued') return;
    try {
      const started = await decideAndAppend(this.store, loaded, { type: 'start' });
      if (started.revision > loaded.revision) this.runner.launch(started);
    } catch (error) {
      if (!(error instanceof ExecutionStateError)) throw error;
    }
  }

  /** Its deadline passed while it waited: it fails DEADLINE_EXCEEDED like a running one (docs/api.md#deadlines). */
  private async expire(executionId: string, now: string): Promise<void> {
    if (!this.waiting.has(executionId)) return;
    const loaded = await loadExecution(this.store, executionId);
    if (!loaded) return;
    await decideAndAppend(this.store, loaded, { type: 'expire', now }).catch((error) => {
      if (!hasEnded(error)) this.logger.warn(`execution ${executionId}: its deadline end is left for the next start: ${(error as Error).message}`);
    });
  }

  /** Through the cancel path, like a client's cancel: the owner runs the cleanup once and records the end. */
  private interrupt(targetId: string, byId: string): void {
    const tenantId = this.waiting.get(byId)!.loaded.tenantId;
    this.commands.execute(new CancelExecutionCommand(tenantId, targetId, interruptReason(byId))).catch((error) => {
      // Ended on its own meanwhile (INVALID_STATE), or the owner is slow: the request stays in the log.
      this.logger.debug(`interrupting ${targetId} for ${byId}: ${(error as Error).message}`);
    });
  }
}
