import { getEventListeners } from 'node:events';
import { RunDelays } from './run-delays';

describe('RunDelays', () => {
  it('waits, with one abort listener for all the delays of a run', async () => {
    const controller = new AbortController();
    const delays = new RunDelays(controller.signal);
    for (let i = 0; i < 50; i++) await delays.wait(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    delays.close();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('is interrupted by the abort, and refuses to start once aborted', async () => {
    const controller = new AbortController();
    const delays = new RunDelays(controller.signal);
    const waiting = delays.wait(60_000);
    setTimeout(() => controller.abort(new Error('cancelled')), 5);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError', cause: new Error('cancelled') });
    await expect(delays.wait(1)).rejects.toMatchObject({ name: 'AbortError' });
  });
});
