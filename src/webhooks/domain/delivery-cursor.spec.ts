import { CursorEvent, emptyCursor, foldCursor, liveSecrets, startingPoint } from './delivery-cursor';
import { WEBHOOK_CREATED, WEBHOOK_DELIVERY_ATTEMPTED, WEBHOOK_REPLAY_REQUESTED, WEBHOOK_SECRET_ROTATED } from './webhook-events';

let revision = 0;
const event = (type: string, position: number, data: Record<string, unknown>): CursorEvent => ({ type, position, data, revision: revision++ });
const created = (position: number) =>
  event(WEBHOOK_CREATED, position, {
    url: 'https://x',
    events: ['run.completed'],
    description: null,
    secret: 'whsec_a',
    createdAt: '2026-01-01T00:00:00.000Z',
  });
const outcome = (at: number, position: number, outcome: string, checkpoint: number, replay = 0, attempt = 1) =>
  event(WEBHOOK_DELIVERY_ATTEMPTED, at, {
    position,
    outcome,
    checkpoint,
    replay,
    attempt,
    nextAttemptAt: outcome === 'retrying' ? '2026-01-01T00:00:05.000Z' : null,
  });

const fold = (events: CursorEvent[]) => startingPoint(events.reduce(foldCursor, emptyCursor()));

describe('the delivery cursor (docs/webhooks.md#the-checkpoint)', () => {
  it('starts after the creation, then at the last checkpoint, skipping what was settled above it', () => {
    expect(fold([created(10)]).checkpoint).toBe(10);
    const cursor = fold([created(10), outcome(13, 12, 'delivered', 10), outcome(15, 14, 'delivered', 10), outcome(16, 11, 'delivered', 12)]);
    expect(cursor.checkpoint).toBe(12);
    expect([...cursor.settled]).toEqual([14]);
  });

  it('resumes a retry at its attempt and time', () => {
    const cursor = fold([created(1), outcome(3, 2, 'retrying', 1)]);
    expect(cursor.pending.get(2)).toEqual({ attempts: 1, nextAttemptAt: '2026-01-01T00:00:05.000Z' });
    expect(cursor.checkpoint).toBe(1);
  });

  it('rewinds for a replay no deliverer applied yet, even when later outcomes say otherwise', () => {
    const cursor = fold([created(1), outcome(3, 2, 'delivered', 2), event(WEBHOOK_REPLAY_REQUESTED, 4, { after: 1 }), outcome(6, 5, 'delivered', 5)]);
    expect(cursor.checkpoint).toBe(1);
    expect(cursor.settled.size).toBe(0);
    expect(cursor.lastReplay).toBe(4);
  });

  it('keeps what was settled after a replay was applied', () => {
    const cursor = fold([created(1), outcome(3, 2, 'delivered', 2), event(WEBHOOK_REPLAY_REQUESTED, 4, { after: 1 }), outcome(6, 5, 'delivered', 1, 4)]);
    expect(cursor.checkpoint).toBe(1);
    expect([...cursor.settled]).toEqual([5]);
  });

  it('signs with the previous secret for 24 hours after a rotation', () => {
    const cursor = fold([created(1), event(WEBHOOK_SECRET_ROTATED, 2, { secret: 'whsec_b', rotatedAt: '2026-01-01T00:00:00.000Z' })]);
    expect(liveSecrets(cursor.secrets, Date.parse('2026-01-01T23:59:59.000Z'))).toEqual(['whsec_b', 'whsec_a']);
    expect(liveSecrets(cursor.secrets, Date.parse('2026-01-02T00:00:00.000Z'))).toEqual(['whsec_b']);
  });
});
