type Answer = Record<string, unknown>;

/**
 * The answers a run's provider waits on, by action id. An answer stored in the log settles its
 * wait once; a run that stops rejects every wait still open with its reason, and any wait asked
 * for after that at once, so a provider never waits on a run that no longer takes answers.
 */
export class PendingAnswers {
  private readonly waiting = new Map<string, { resolve: (answer: Answer) => void; reject: (reason: unknown) => void }>();
  private stopped: { reason: unknown } | null = null;

  wait(actionId: string): Promise<Answer> {
    if (this.stopped) return Promise.reject(this.stopped.reason);
    return new Promise((resolve, reject) => this.waiting.set(actionId, { resolve, reject }));
  }

  deliver(actionId: string, answer: Answer): void {
    this.waiting.get(actionId)?.resolve(answer);
    this.waiting.delete(actionId);
  }

  stop(reason: unknown): void {
    this.stopped ??= { reason };
    for (const wait of this.waiting.values()) wait.reject(reason);
    this.waiting.clear();
  }
}
