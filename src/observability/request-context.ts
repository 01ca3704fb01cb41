import { trace } from '@opentelemetry/api';
import { Store, storage } from 'nestjs-pino/storage';
import type { IncomingMessage } from 'node:http';
import type { Logger as Pino } from 'pino';
import { rootLogger } from './logger';

/**
 * nestjs-pino's async-local store, which its Logger reads on every line: the logger of the
 * request (with its `reqId`) or of the execution being driven, plus the execution id bound to it.
 */
export class LogContext extends Store {
  executionId: string | null = null;
}

const contexts = new WeakMap<IncomingMessage, LogContext>();

/** The log context of a request, on its own logger (never a shared one); `enterRequestContext` runs code inside it. */
export function openRequestContext(raw: IncomingMessage, logger: Pino): LogContext {
  const context = new LogContext(logger);
  contexts.set(raw, context);
  return context;
}

/**
 * Runs `fn` (the rest of the request: the next hooks, the route) inside the request's log context.
 * Fastify reads the body in the socket's own async context, so a preValidation hook enters it again.
 */
export function enterRequestContext(raw: IncomingMessage, fn: () => void): void {
  const context = contexts.get(raw);
  if (context && storage.getStore() !== context) storage.run(context, fn);
  else fn();
}

/**
 * Tags what follows in the current request (or execution) with the execution it concerns: its log
 * lines (the request's closing line too) and the active span. The first id bound wins.
 */
export function bindExecutionId(executionId: string): void {
  trace.getActiveSpan()?.setAttribute('runledger.execution_id', executionId);
  const context = storage.getStore();
  if (!(context instanceof LogContext) || context.executionId !== null) return;
  // The request's own logger (Fastify makes one per request), so its bindings are changed in
  // place: a child logger here cost ~40 µs per start in a profile, most of it pino's set-up.
  context.logger.setBindings({ executionId });
  context.executionId = executionId;
}

/**
 * Runs `fn` (a running execution's session) in a log context of its own, so that its lines carry
 * the execution id long after the request that started it has ended — and that request's `reqId`,
 * which says what started it.
 */
export function withExecutionLogContext<T>(executionId: string, fn: () => T): T {
  const current = storage.getStore();
  const same = current instanceof LogContext && current.executionId === executionId;
  const other = current instanceof LogContext && current.executionId !== null && !same;
  const logger = same ? current.logger : (other || !current ? rootLogger() : current.logger).child({ executionId });
  const context = new LogContext(logger);
  context.executionId = executionId;
  return storage.run(context, fn);
}
