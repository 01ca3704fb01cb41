import { PendingAnswers } from './pending-answers';

describe('PendingAnswers', () => {
  it('settles a wait with its delivered answer, once', async () => {
    const answers = new PendingAnswers();
    const waiting = answers.wait('a1');
    answers.deliver('a1', { decision: 'approve' });
    answers.deliver('a1', { decision: 'deny' });
    await expect(waiting).resolves.toEqual({ decision: 'approve' });
  });

  it('rejects the open waits with the stop reason, and every wait asked for after the stop', async () => {
    const answers = new PendingAnswers();
    const open = answers.wait('a1');
    const reason = new Error('execution was cancelled');
    answers.stop(reason);
    await expect(open).rejects.toBe(reason);
    await expect(answers.wait('a2')).rejects.toBe(reason);
  });
});
