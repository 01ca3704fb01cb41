import { trace } from '@opentelemetry/api';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import type { IncomingMessage } from 'node:http';
import type { Logger as Pino } from 'pino';
import { rootLogger } from './logger';

/**
 * The log context is carried by hand, never in an AsyncLocalStorage: on Node 20 one that has ever
 * been entered keeps a promise hook on for every promise in the process, which measured 10 % of
 * the allocations and 3.3 % of the event loop's time while streaming (docs/benchmarks.md). So a line that
 * must carry a request's `reqId` or a run's `executionId` is written on that request's or run's
 * logger (`linesOn`); `new Logger('X')` lines carry neither.
 */

/** What the code handling a request (or driving a run) writes its lines with; Nest's `Logger` is one. */
export interface LogLines {
  debug(message: string): void;
  log(message: string): void;
  warn(message: string): void;
  error(message: string, stack?: string): void;
}

/** A request's logger (Fastify's, with its `reqId`) and the execution bound to it. */
export class RequestLog {
  executionId: string | null = null;

  constructor(readonly logger: Pino) {}

  /**
   * Tags what follows in the request with the execution it concerns: its log lines (the closing
   * line too) and the active span. The first id bound wins.
   */
  bindExecutionId(executionId: string): void {
    trace.getActiveSpan()?.setAttribute('runledger.execution_id', executionId);
    if (this.executionId !== null) return;
    // Fastify's logger of this request alone, so its bindings are changed in place: a child
    // logger here cost ~40 µs per start in a profile, most of it pino's set-up.
    this.logger.setBindings({ executionId });
    this.executionId = executionId;
  }
}

const logs = new WeakMap<IncomingMessage, RequestLog>();

/** Opens the log context of a request, on its own logger (never a shared one). */
export function openRequestLog(raw: IncomingMessage, logger: Pino): RequestLog {
  const log = new RequestLog(logger);
  logs.set(raw, log);
  return log;
}

/** The log context of a request opened by the request log's first hook. */
export function requestLogOf(raw: IncomingMessage): RequestLog | undefined {
  return logs.get(raw);
}

/**
 * The logger of a running execution: its lines carry the execution id long after the request
 * that started it has ended — and that request's `reqId`, which says what started it.
 */
export function executionLogger(executionId: string, startedBy?: RequestLog): Pino {
  if (startedBy?.executionId === executionId) return startedBy.logger;
  const parent = startedBy && startedBy.executionId === null ? startedBy.logger : rootLogger();
  return parent.child({ executionId });
}

/** Nest-`Logger`-shaped lines with `context` on `logger`, formatted as nestjs-pino formats every other line. */
export function linesOn(logger: Pino, context: string): LogLines {
  // nestjs-pino's Logger only calls the level methods of what it is given, which a pino logger has.
  const nest = new NestPinoLogger(logger as unknown as PinoLogger, {});
  return {
    debug: (message) => nest.debug(message, context),
    log: (message) => nest.log(message, context),
    warn: (message) => nest.warn(message, context),
    error: (message, stack) => (stack === undefined ? nest.error(message, context) : nest.error(message, stack, context)),
  };
}
