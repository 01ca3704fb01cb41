import type { StoredEvent } from './event-store';
import { eventWeight, keptFrom, weightOf } from './event-weight';
import { StoredRow } from './stored-row';

const row = (position: number, chars: number): StoredEvent =>
  new StoredRow(`e${position}`, 's', position, position, 'output.text.delta', JSON.stringify({ d: 'x'.repeat(chars) }), '{}', 'now', 2);

describe('event weights', () => {
  it('weigh an event 256 plus its data text, and cut a run to a count and a weight', () => {
    expect(eventWeight(row(1, 100))).toBe(256 + 100 + 8);
    const run = [row(1, 736), row(2, 736), row(3, 736), row(4, 736)]; // 1,000 each
    expect(weightOf(run)).toBe(4000);
    expect(weightOf(run, 1, 3)).toBe(2000);
    expect(keptFrom(run, 10, 10_000)).toBe(0);
    expect(keptFrom(run, 3, 10_000)).toBe(1);
    expect(keptFrom(run, 10, 2_500)).toBe(2);
    // Its last event alone weighs more than allowed: nothing is kept.
    expect(keptFrom(run, 10, 999)).toBe(4);
  });
});
