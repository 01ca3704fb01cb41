import { AppendsInFlight } from './appends-in-flight';

describe('AppendsInFlight', () => {
  it('answers at once when nothing is in flight', async () => {
    await expect(new AppendsInFlight().settled(1000)).resolves.toBe(true);
  });

  it('waits for every append begun before the call, in whatever order they settle, and not for later ones', async () => {
    const inFlight = new AppendsInFlight();
    const first = inFlight.begin();
    const second = inFlight.begin();
    let settled = false;
    const waiting = inFlight.settled(1000).then((answer) => (settled = answer));
    const later = inFlight.begin();
    inFlight.settle(second);
    await Promise.resolve();
    expect(settled).toBe(false);
    inFlight.settle(first);
    await waiting;
    expect(settled).toBe(true);
    inFlight.settle(later);
  });

  it('answers false after its bound while an append has not settled, and lets go of the waiter', async () => {
    const inFlight = new AppendsInFlight();
    const stuck = inFlight.begin();
    await expect(inFlight.settled(20)).resolves.toBe(false);
    expect(inFlight['waiters']).toHaveLength(0);
    inFlight.settle(stuck);
    await expect(inFlight.settled(20)).resolves.toBe(true);
  });
});
