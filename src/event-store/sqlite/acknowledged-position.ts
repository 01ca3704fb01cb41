/**
 * The newest position whose commit this thread has been told of, and so the last position any
 * read of its connection may see.
 *
 * The writer thread's commit is in the file a little before its answer reaches the event loop. A
 * read of the file in between would see events that no append has been answered for yet, and
 * that the per-stream memory (recent-events.ts, stream-heads.ts) does not hold: a subscription
 * could hand one out, and a read answered from memory right after would answer less. Bounded by
 * this position, every read agrees with memory and with every answered append, and none of them
 * needs to ask the file for its head first.
 *
 * Only `raise` moves it, and only forward: positions grow with every commit of the one writer.
 */
export class AcknowledgedPosition {
  constructor(private current: number) {}

  get value(): number {
    return this.current;
  }

  raise(position: number): void {
    if (position > this.current) this.current = position;
  }
}
