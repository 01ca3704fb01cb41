import {
  Attributes,
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  Span,
  SpanOptions,
  SpanStatusCode,
  context,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';
import { isRefusal } from '../common/errors/app-error';

/**
 * The application's spans go through @opentelemetry/api alone: without a registered SDK (no
 * OTEL_EXPORTER_OTLP_ENDPOINT, see tracing-bootstrap.ts) every call here is the API's no-op.
 */
export const tracer = trace.getTracer('runledger');

/** The API's own no-op provider: what the global one delegates to until an SDK registers. */
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Whether an SDK records spans. Asked on every call (an SDK may register after this module
 * loads); without one, a span per append was ~4 % of the allocations of a streamed delta.
 */
export const tracingOn = (): boolean => {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
};

/** What a span says of an outcome its caller expects: a short label, or null for a real failure. */
export type ExpectedOutcome = (error: unknown) => string | null;

/** By default a refusal of the request (docs/design.md#errors) is expected: its code is the label. */
const refusalCode: ExpectedOutcome = (error) => (isRefusal(error) ? error.code : null);

export interface InSpanOptions extends SpanOptions {
  expected?: ExpectedOutcome;
}

/**
 * Runs `fn` in a child span of the active one. A rejection the caller expects (a 4xx refusal, a
 * revision conflict the command re-decides) is recorded as the `runledger.outcome` attribute and
 * an event, the status left unset: span-based error alerts must not fire on healthy traffic. Any
 * other rejection marks the span failed.
 */
export function inSpan<T>(name: string, attributes: Attributes, fn: (span: Span) => Promise<T>, options: InSpanOptions = {}): Promise<T> {
  if (!tracingOn()) return fn(NO_SPAN);
  const { expected = refusalCode, ...spanOptions } = options;
  return tracer.startActiveSpan(name, { ...spanOptions, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      const outcome = expected(error);
      if (outcome !== null) {
        span.setAttribute('runledger.outcome', outcome);
        span.addEvent('expected outcome', { 'runledger.outcome': outcome, message });
      } else {
        span.recordException(error instanceof Error ? error : String(error));
        span.setStatus({ code: SpanStatusCode.ERROR, message });
      }
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
 * The trace active now, for work that belongs to it whoever triggers it later: a run's provider
 * cleanup is started by a cancel request, yet is the execution's work (docs/operations.md#traces).
 */
export function currentTrace(): <T>(fn: () => T) => T {
  const captured = context.active();
  return (fn) => context.with(captured, fn);
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
