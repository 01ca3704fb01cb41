import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { nestLogger, rootLogger, setLogLevel } from './logger';
import { bindExecutionId, enterRequestContext, openRequestContext, withExecutionLogContext } from './request-context';
import { requestIdOf } from './request-id';

/** What the root logger writes while `fn` runs, as parsed lines. */
async function captured(fn: () => Promise<void> | void): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => (lines.push(String(chunk)), true));
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.flatMap((chunk) => chunk.split('\n').filter(Boolean)).map((line) => JSON.parse(line));
}

const rawRequest = (headers: Record<string, string> = {}) => ({ headers }) as unknown as IncomingMessage;

describe('request ids', () => {
  it.each(['abc-123', 'x'.repeat(128), '01J9Z:trace/42'])('takes an acceptable X-Request-Id as it is: %s', (id) => {
    expect(requestIdOf(rawRequest({ 'x-request-id': id }))).toBe(id);
  });

  it.each(['', 'x'.repeat(129), 'two words', 'tab\there', 'ünïcode'])('replaces an unacceptable one with a UUID: %j', (id) => {
    expect(requestIdOf(rawRequest({ 'x-request-id': id }))).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('generates one when none is sent, a new one each time', () => {
    expect(requestIdOf(rawRequest())).not.toBe(requestIdOf(rawRequest()));
  });
});

describe('log context', () => {
  beforeAll(() => {
    setLogLevel('info');
    Logger.overrideLogger(nestLogger());
  });

  it("puts a request's id and its execution's id on every Nest Logger line inside it, binding the first id only", async () => {
    let context: { logger: { bindings(): object } } | undefined;
    const lines = await captured(() => {
      const raw = rawRequest();
      context = openRequestContext(raw, rootLogger().child({ reqId: 'r-1' }));
      enterRequestContext(raw, () => {
        new Logger('Test').log('before');
        bindExecutionId('exec-1');
        bindExecutionId('exec-2');
        new Logger('Test').log('after');
      });
    });
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'r-1', context: 'Test', msg: 'before' }),
      expect.objectContaining({ reqId: 'r-1', executionId: 'exec-1', context: 'Test', msg: 'after' }),
    ]);
    expect(lines[0]).not.toHaveProperty('executionId');
    // What the request's closing line is written with.
    expect(context!.logger.bindings()).toEqual({ reqId: 'r-1', executionId: 'exec-1' });
  });

  it("gives a run its execution id, keeping the starting request's id, and outlives it", async () => {
    let later: Promise<void> = Promise.resolve();
    const lines = await captured(async () => {
      const raw = rawRequest();
      openRequestContext(raw, rootLogger().child({ reqId: 'r-2' }));
      enterRequestContext(raw, () => {
        bindExecutionId('exec-3');
        withExecutionLogContext('exec-3', () => {
          later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => new Logger('Run').warn('still running'));
        });
      });
      await later;
      new Logger('Outside').log('no request');
    });
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'r-2', executionId: 'exec-3', context: 'Run', msg: 'still running' }),
      expect.objectContaining({ context: 'Outside', msg: 'no request' }),
    ]);
    // One executionId key, not two (the request had bound the same one).
    expect(JSON.stringify(lines[0]).match(/"executionId"/g)).toHaveLength(1);
    expect(lines[1]).not.toHaveProperty('reqId');
  });

  it('a run started outside any request has the execution id alone', async () => {
    const lines = await captured(() => withExecutionLogContext('exec-4', () => new Logger('Run').log('resumed')));
    expect(lines).toEqual([expect.objectContaining({ executionId: 'exec-4', msg: 'resumed' })]);
    expect(lines[0]).not.toHaveProperty('reqId');
  });
});
