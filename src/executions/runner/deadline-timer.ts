import { nowIso } from '../../common/clock';

/** setTimeout's longest delay; a later instant is reached in several hops. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `fire` with the current instant once the wall clock has reached `due` (an ISO instant),
 * never before, and never synchronously: a timer that wakes early (timers and the wall clock
 * drift apart) waits again. The timers never hold the process; `clear()` stops them all.
 */
export class DeadlineTimers {
  private readonly timers = new Set<NodeJS.Timeout>();
  private cleared = false;

  at(due: string, fire: (now: string) => void): void {
    if (this.cleared) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (this.cleared) return;
        const now = nowIso();
        if (now < due) return this.at(due, fire);
        fire(now);
      },
      Math.min(Math.max(Date.parse(due) - Date.parse(nowIso()), 0), MAX_DELAY_MS),
    );
    timer.unref();
    this.timers.add(timer);
  }

  clear(): void {
    this.cleared = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
