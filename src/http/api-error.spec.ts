import { ApiError, errorEnvelope } from './api-error';

describe('ApiError', () => {
  it('captures no stack frames, and leaves the limit for other errors as it was', () => {
    const before = Error.stackTraceLimit;
    const error = new ApiError('NOT_FOUND', 'execution x not found');
    expect(error.stack).toBe('ApiError: execution x not found');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('other').stack).toMatch(/\n\s+at /);
  });

  it('keeps its status and renders the envelope', () => {
    const error = new ApiError('NOT_FOUND', 'execution x not found', { id: 'x' });
    expect(error.status).toBe(404);
    expect(errorEnvelope(error)).toEqual({ error: { code: 'NOT_FOUND', message: 'execution x not found', details: { id: 'x' } } });
  });
});
