import { Logger } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { nestLogger, rootLogger, setLogLevel } from './logger';
import { storage } from 'nestjs-pino/storage';
import { executionLogger, linesOn, openRequestLog, RequestLog, requestLogOf } from './request-context';
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

  it("puts a request's id and its execution's id on the lines written on its logger, binding the first id only", async () => {
    let log: RequestLog | undefined;
    const raw = rawRequest();
    const lines = await captured(() => {
      log = openRequestLog(raw, rootLogger().child({ reqId: 'r-1' }));
      linesOn(requestLogOf(raw)!.logger, 'Test').log('before');
      log.bindExecutionId('exec-1');
      log.bindExecutionId('exec-2');
      linesOn(log.logger, 'Test').warn('after');
      new Logger('Elsewhere').log('not on the request');
    });
    expect(lines).toEqual([
      expect.objectContaining({ reqId: 'r-1', context: 'Test', msg: 'before' }),
      expect.objectContaining({ level: 'warn', reqId: 'r-1', executionId: 'exec-1', context: 'Test', msg: 'after' }),
      expect.objectContaining({ context: 'Elsewhere', msg: 'not on the request' }),
    ]);
    expect(lines[0]).not.toHaveProperty('executionId');
    expect(lines[2]).not.toHaveProperty('reqId');
    // What the request's closing line is written with.
    expect(log!.logger.bindings()).toEqual({ reqId: 'r-1', executionId: 'exec-1' });
  });

  it("gives a run its execution id, keeping the starting request's id, and outlives it", async () => {
    const lines = await captured(async () => {
      const log = openRequestLog(rawRequest(), rootLogger().child({ reqId: 'r-2' }));
      log.bindExecutionId('exec-3');
      const run = linesOn(executionLogger('exec-3', log), 'Run');
      await new Promise((resolve) => setTimeout(resolve, 5));
      run.error('still running', new Error('boom').stack);
      new Logger('Outside').log('no request');
    });
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        reqId: 'r-2',
        executionId: 'exec-3',
        context: 'Run',
        err: expect.objectContaining({ message: 'still running' }),
      }),
      expect.objectContaining({ context: 'Outside', msg: 'no request' }),
    ]);
    // One executionId key, not two (the request had bound the same one).
    expect(JSON.stringify(lines[0]).match(/"executionId"/g)).toHaveLength(1);
    expect(lines[1]).not.toHaveProperty('reqId');
  });

  it('a run started by a request bound to another execution, or by none, has its own execution id alone', async () => {
    const other = openRequestLog(rawRequest(), rootLogger().child({ reqId: 'r-3' }));
    other.bindExecutionId('exec-0');
    const fresh = openRequestLog(rawRequest(), rootLogger().child({ reqId: 'r-4' }));
    const lines = await captured(() => {
      linesOn(executionLogger('exec-4'), 'Run').log('resumed');
      linesOn(executionLogger('exec-5', other), 'Run').log('continued');
      linesOn(executionLogger('exec-6', fresh), 'Run').log('started');
    });
    expect(lines).toEqual([
      expect.objectContaining({ executionId: 'exec-4', msg: 'resumed' }),
      expect.objectContaining({ executionId: 'exec-5', msg: 'continued' }),
      expect.objectContaining({ reqId: 'r-4', executionId: 'exec-6', msg: 'started' }),
    ]);
    expect(lines[0]).not.toHaveProperty('reqId');
    expect(lines[1]).not.toHaveProperty('reqId');
    // The request that started exec-6 keeps its own bindings (its closing line names no execution).
    expect(fresh.logger.bindings()).toEqual({ reqId: 'r-4' });
  });

  it("leaves nestjs-pino's AsyncLocalStorage disabled: an entered one would put a promise hook on every promise", async () => {
    await captured(async () => {
      const log = openRequestLog(rawRequest(), rootLogger().child({ reqId: 'r-5' }));
      log.bindExecutionId('exec-7');
      new Logger('Test').log('a line');
      await Promise.resolve();
    });
    // Node 20's AsyncLocalStorage says whether run() or enterWith() has switched it (and its hook) on.
    expect((storage as unknown as { enabled: boolean }).enabled).toBe(false);
  });
});
