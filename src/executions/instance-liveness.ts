import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { INSTANCE_ID } from '../common/instance-id';
import { CONFIG, Config } from '../config/config';
import { EVENT_STORE, EventStore } from '../event-store/event-store';

/** This instance's heartbeat in a shared store, and who else is alive. */
@Injectable()
export class InstanceLiveness implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Instances');
  private timer: NodeJS.Timeout | null = null;
  private failing = false;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(CONFIG) private readonly config: Pick<Config, 'heartbeatIntervalMs' | 'heartbeatLapseMs'>,
  ) {}

  /** Whether several instances may share the store (and so run each other's sweeps). */
  get shared(): boolean {
    return this.store.instances !== null;
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.store.instances) return;
    await this.beat();
    this.timer = setInterval(() => void this.beat(), this.config.heartbeatIntervalMs);
    this.timer.unref();
    this.logger.log(`instance ${INSTANCE_ID} heartbeats every ${this.config.heartbeatIntervalMs} ms (gone after ${this.config.heartbeatLapseMs} ms)`);
  }

  /**
   * Answers whether an owner is gone: not this instance, and not heard of within the lapse. A
   * store only this process writes has no other live owner: a run without a session here is
   * orphaned whoever started it (an earlier process, or this one before a restart in place).
   */
  async goneOwners(): Promise<(owner: string | null) => boolean> {
    const registry = this.store.instances;
    if (!registry) return () => true;
    const alive = await registry.alive(this.config.heartbeatLapseMs);
    return (owner) => owner !== INSTANCE_ID && (owner === null || !alive.has(owner));
  }

  /**
   * Whether `owner` may still be running its run: this instance, or another one alive now. Its
   * runner then hears cancels through the log; otherwise the events alone end the run.
   */
  async isRunning(owner: string | null): Promise<boolean> {
    if (owner === INSTANCE_ID) return true;
    const registry = this.store.instances;
    if (!registry || owner === null) return false;
    return (await registry.alive(this.config.heartbeatLapseMs)).has(owner);
  }

  /** A clean stop leaves at once: its runs are ended by the others without waiting for the lapse. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.store.instances?.leave(INSTANCE_ID).catch(() => undefined);
  }

  private async beat(): Promise<void> {
    try {
      await this.store.instances!.beat(INSTANCE_ID);
      if (this.failing) this.logger.log('heartbeat stored again');
      this.failing = false;
    } catch (error) {
      if (!this.failing) this.logger.warn(`heartbeat not stored: ${(error as Error).message}`);
      this.failing = true;
    }
  }
}
