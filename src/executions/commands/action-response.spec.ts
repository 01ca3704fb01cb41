import { AppError } from '../../common/errors/app-error';
import { ActionState } from '../domain/execution-state';
import { actionResponse } from './action-response';

const action = (kind: ActionState['kind']): ActionState => ({
  id: 'a1',
  kind,
  prompt: 'ok?',
  inputSchema: null,
  tool: null,
  status: 'pending',
  response: null,
  createdAt: '2026-09-02T10:00:00.000Z',
  resolvedAt: null,
});

const problem = async (kind: ActionState['kind'], body: Record<string, unknown>) => {
  try {
    await actionResponse(action(kind), body);
    return null;
  } catch (error) {
    return { code: (error as AppError).code, message: (error as Error).message };
  }
};

describe('actionResponse: the respond body, checked by its DTO in the words of docs/api.md#actions', () => {
  it.each([
    [{ decision: 'maybe', extra: 1 }, 'extra is not a known field of an approval response'],
    [{}, 'decision must be "approve" or "deny"'],
    [{ decision: 'maybe', comment: 5 }, 'decision must be "approve" or "deny"'],
    [{ decision: 'approve', comment: '' }, 'comment must be a string of 1 to 2000 characters'],
    [{ decision: 'approve', comment: 5 }, 'comment must be a string of 1 to 2000 characters'],
    [{ decision: 'deny', comment: '😀'.repeat(2001) }, 'comment must be a string of 1 to 2000 characters'],
  ])('approval %j → %s', async (body, message) => {
    expect(await problem('approval', body)).toEqual({ code: 'VALIDATION_ERROR', message });
  });

  it.each(['__proto__', 'constructor', 'hasOwnProperty', 'toString'])('an own %s key is an unknown field like any other', async (key) => {
    expect(await problem('approval', JSON.parse(`{"decision": "approve", "${key}": {}}`))).toEqual({
      code: 'VALIDATION_ERROR',
      message: `${key} is not a known field of an approval response`,
    });
  });

  it('stores an approval less a comment sent as null, and keeps one of 2000 code points', async () => {
    expect(await actionResponse(action('approval'), { decision: 'approve', comment: null })).toEqual({ decision: 'approve' });
    const comment = '😀'.repeat(2000);
    expect(await actionResponse(action('approval'), { comment, decision: 'deny' })).toEqual({ decision: 'deny', comment });
  });

  it.each([
    [{ value: 1, extra: 2 }, 'extra is not a known field of an input response'],
    [{}, 'value is required'],
  ])('input %j → %s', async (body, message) => {
    expect(await problem('input', body)).toEqual({ code: 'VALIDATION_ERROR', message });
  });

  it('takes any JSON value, null included, as an input', async () => {
    for (const value of [null, 0, '', [], {}]) expect(await actionResponse(action('input'), { value })).toEqual({ value });
  });
});
