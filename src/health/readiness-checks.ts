import { Injectable } from '@nestjs/common';

/** A check's answer; extra fields (a lag, a position) show up in the readiness details. */
export interface ReadinessVerdict {
  ready: boolean;
  /** Why it is not ready, in words safe for an unauthenticated caller (no paths, no hosts). */
  message?: string;
  [detail: string]: unknown;
}

export type ReadinessCheck = () => ReadinessVerdict | Promise<ReadinessVerdict>;

/**
 * Named readiness checks that other modules contribute, so `/health/ready` need not know every
 * part of the runtime: e.g. the projector registers "projections" (not far behind) in its
 * `onModuleInit`. A check that throws counts as not ready.
 */
@Injectable()
export class ReadinessChecks {
  private readonly checks = new Map<string, ReadinessCheck>();

  add(name: string, check: ReadinessCheck): void {
    if (this.checks.has(name)) throw new Error(`readiness check "${name}" is registered twice`);
    this.checks.set(name, check);
  }

  entries(): [string, ReadinessCheck][] {
    return [...this.checks];
  }
}
