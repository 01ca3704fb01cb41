import { getEventListeners } from 'node:events';
import { ALL_STREAMS, WakeHub } from './wake-hub';

const settled = async (promise: Promise<void>): Promise<boolean> => {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
};

describe('WakeHub', () => {
  it('wakes the waiters of the channels named, and only those', async () => {
    const hub = new WakeHub();
    const a = hub.wait('a');
    const b = hub.wait('b');
    const all = hub.wait(ALL_STREAMS);
    hub.wake(['a', ALL_STREAMS]);
    expect([await settled(a.promise), await settled(b.promise), await settled(all.promise)]).toEqual([true, false, true]);
    expect([hub.hasWaiters('a'), hub.hasWaiters('b')]).toEqual([false, true]);
  });

  it('forgets a cancelled wait', async () => {
    const hub = new WakeHub();
    const wait = hub.wait('a');
    wait.cancel();
    expect(hub.hasWaiters('a')).toBe(false);
    hub.wake(['a']);
    expect(await settled(wait.promise)).toBe(false);
  });

  it("ends a signal's waits when it aborts, and no other", async () => {
    const hub = new WakeHub();
    const controller = new AbortController();
    const mine = [hub.wait('a', controller.signal), hub.wait(ALL_STREAMS, controller.signal)];
    const other = hub.wait('a');
    controller.abort();
    expect(await Promise.all(mine.map((w) => settled(w.promise)))).toEqual([true, true]);
    expect(await settled(other.promise)).toBe(false);
    expect(await settled(hub.wait('a', controller.signal).promise)).toBe(true);
  });

  it('keeps one abort listener per signal however many times a follower waits', async () => {
    const hub = new WakeHub();
    const controller = new AbortController();
    for (let i = 0; i < 1000; i++) {
      const wait = hub.wait('a', controller.signal);
      if (i % 2 === 1) {
        wait.cancel();
        continue;
      }
      hub.wake(['a']);
      await wait.promise;
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    const last = hub.wait('a', controller.signal);
    controller.abort();
    expect(await settled(last.promise)).toBe(true);
    expect(hub.hasWaiters('a')).toBe(false);
  });

  it('counts a stream as followed from follow() to its release, woken or not, once per release', () => {
    const hub = new WakeHub();
    const first = hub.follow('a');
    const second = hub.follow('a');
    hub.wait('a');
    hub.wake(['a']);
    expect(hub.hasWaiters('a')).toBe(false);
    expect([hub.isFollowed('a'), hub.followedStreams()]).toEqual([true, ['a']]);
    first();
    first();
    expect(hub.isFollowed('a')).toBe(true);
    second();
    expect([hub.isFollowed('a'), hub.followedStreams()]).toEqual([false, []]);
  });
});
