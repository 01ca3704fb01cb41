import { NotFoundError, ServiceUnavailableError, ValidationError } from './request-errors';

describe('AppError', () => {
  it('captures no stack frames for a refusal, and leaves the limit for other errors as it was', () => {
    const before = Error.stackTraceLimit;
    expect(new ValidationError('conversationId must be a UUID').stack).toBe('ValidationError: conversationId must be a UUID');
    expect(new NotFoundError('execution x not found').stack).toBe('NotFoundError: execution x not found');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('other').stack).toMatch(/\n\s+at /);
  });

  it('keeps the stack of a fault, for the logs', () => {
    expect(new ServiceUnavailableError('shutting down').stack).toMatch(/^ServiceUnavailableError: shutting down\n\s+at /);
  });
});
