import {
  ConversationBusyError,
  ConversationFullError,
  MAX_OPEN_PER_CONVERSATION,
  OpenTurn,
  decideAdmission,
  interruptReason,
  predecessorsOf,
} from './concurrency';

const turn = (executionId: string, concurrency: OpenTurn['concurrency'] = 'parallel'): OpenTurn => ({ executionId, concurrency });
const none = new Set<string>();

describe('decideAdmission', () => {
  const state = { open: [turn('a'), turn('b', 'enqueue')] };

  it('parallel starts at once and joins the open ones, whatever is open', () => {
    expect(decideAdmission('c', { executionId: 'n', concurrency: 'parallel', ended: none }, state)).toEqual({
      executionId: 'n',
      concurrency: 'parallel',
      open: [turn('a'), turn('b', 'enqueue'), turn('n')],
      waitsFor: [],
      interrupts: [],
    });
  });

  it('reject refuses while any is open, and starts once all have ended', () => {
    expect(() => decideAdmission('c', { executionId: 'n', concurrency: 'reject', ended: new Set(['a']) }, state)).toThrow(ConversationBusyError);
    expect(decideAdmission('c', { executionId: 'n', concurrency: 'reject', ended: new Set(['a', 'b']) }, state)).toMatchObject({
      open: [turn('n', 'reject')],
      waitsFor: [],
    });
    expect(decideAdmission('c', { executionId: 'n', concurrency: 'reject', ended: none }, { open: [] }).waitsFor).toEqual([]);
  });

  it('enqueue waits for every earlier one still open, in creation order', () => {
    const admission = decideAdmission('c', { executionId: 'n', concurrency: 'enqueue', ended: new Set(['a']) }, state);
    expect(admission).toMatchObject({ waitsFor: ['b'], interrupts: [], open: [turn('b', 'enqueue'), turn('n', 'enqueue')] });
    expect(decideAdmission('c', { executionId: 'n', concurrency: 'enqueue', ended: none }, { open: [] }).waitsFor).toEqual([]);
  });

  it('interrupt cancels every one still open and waits for their ends', () => {
    expect(decideAdmission('c', { executionId: 'n', concurrency: 'interrupt', ended: none }, state)).toMatchObject({
      waitsFor: ['a', 'b'],
      interrupts: ['a', 'b'],
    });
    expect(interruptReason('n')).toBe('interrupted by execution n');
  });

  it('ended ones are pruned from the open list for good', () => {
    expect(decideAdmission('c', { executionId: 'n', concurrency: 'parallel', ended: new Set(['a', 'b']) }, state).open).toEqual([turn('n')]);
  });

  it(`refuses the ${MAX_OPEN_PER_CONVERSATION + 1}th open execution, whatever the policy`, () => {
    const full = { open: Array.from({ length: MAX_OPEN_PER_CONVERSATION }, (_, i) => turn(`e${i}`)) };
    for (const concurrency of ['parallel', 'enqueue', 'interrupt'] as const) {
      expect(() => decideAdmission('c', { executionId: 'n', concurrency, ended: none }, full)).toThrow(ConversationFullError);
    }
    expect(decideAdmission('c', { executionId: 'n', concurrency: 'parallel', ended: new Set(['e0']) }, full).open).toHaveLength(MAX_OPEN_PER_CONVERSATION);
  });

  it('refusals are INVALID_STATE', () => {
    expect(new ConversationBusyError('c', ['a']).code).toBe('INVALID_STATE');
    expect(new ConversationFullError('c').code).toBe('INVALID_STATE');
  });
});

describe('predecessorsOf', () => {
  const state = { open: [turn('a'), turn('b', 'enqueue'), turn('c', 'enqueue'), turn('d')] };

  it('the earlier ones not ended; null when the execution is not open', () => {
    expect(predecessorsOf(state, 'c', new Set(['a']))).toEqual(['b']);
    expect(predecessorsOf(state, 'a', none)).toEqual([]);
    expect(predecessorsOf(state, 'x', none)).toBeNull();
  });
});
