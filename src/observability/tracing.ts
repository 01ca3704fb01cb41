import { Attributes, Span, SpanOptions, SpanStatusCode, context, isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * The application's spans go through @opentelemetry/api alone: without a registered SDK (no
 * OTEL_EXPORTER_OTLP_ENDPOINT, see tracing-bootstrap.ts) every call here is the API's no-op.
 */
export const tracer = trace.getTracer('runledger');

/** Runs `fn` in a child span of the active one; a rejection marks the span failed. */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, options: SpanOptions = {}): Promise<T> {
  return tracer.startActiveSpan(name, { ...options, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * A span around a CommandBus handler's `execute`, named after the command, with its tenant and
 * execution id when it has them. The HTTP request that dispatched it is its parent.
 */
export function TracedCommand(): MethodDecorator {
  return (_target, _key, descriptor: PropertyDescriptor) => {
    const execute = descriptor.value as (this: unknown, command: object) => Promise<unknown>;
    descriptor.value = function (this: unknown, command: object) {
      const name = command.constructor.name.replace(/Command$/, '');
      const { tenantId, executionId } = command as { tenantId?: unknown; executionId?: unknown };
      const attributes: Attributes = { 'runledger.command': name };
      if (typeof tenantId === 'string') attributes['runledger.tenant_id'] = tenantId;
      if (typeof executionId === 'string') attributes['runledger.execution_id'] = executionId;
      return inSpan(`command ${name}`, attributes, () => execute.call(this, command));
    };
  };
}

/**
 * A running execution outlives the request that started it: its work (the provider call, the
 * appends of its output) goes in a trace of its own, whose root span links back to the span that
 * launched it. `run` enters that span; `span.end()` once the execution is done.
 */
export function startExecutionTrace(attributes: Attributes): { span: Span; run<T>(fn: () => T): T } {
  const launcher = trace.getActiveSpan()?.spanContext();
  const links = launcher && isSpanContextValid(launcher) ? [{ context: launcher }] : [];
  const span = tracer.startSpan('execution run', { root: true, links, attributes });
  const active = trace.setSpan(context.active(), span);
  return { span, run: (fn) => context.with(active, fn) };
}
