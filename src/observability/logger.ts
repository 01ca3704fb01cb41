import { isSpanContextValid, trace } from '@opentelemetry/api';
import { Logger as NestPinoLogger, PinoLogger } from 'nestjs-pino';
import pino, { Logger as Pino, LevelWithSilent } from 'pino';
import { redactedUrl } from './redacted-url';

/** LOG_LEVEL's values, which are pino's own level names. */
export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug';

/**
 * Anything that could carry a credential, wherever a serializer might put it: request and response
 * headers (pino-http logs them at debug) and the usual field names. Bodies are never logged.
 */
const REDACTED = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["proxy-authorization"]',
  'headers.cookie',
  'authorization',
  'apiKey',
  'token',
];

const fromEnv = (raw: string | undefined): LogLevel => (['silent', 'error', 'warn', 'info', 'debug'] as const).find((level) => level === raw) ?? 'info';

let root: Pino | undefined;

/**
 * The process's one pino logger: one JSON object per line on stdout. Created on first use with
 * LOG_LEVEL (or `info` while the configuration is not read yet); `setLogLevel` applies the
 * validated value.
 */
export function rootLogger(): Pino {
  root ??= pino(
    {
      level: fromEnv(process.env.LOG_LEVEL),
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED, censor: '[redacted]' },
      // Fastify's request loggers take these over its own: the request's headers (redacted above)
      // say who called, its URL without the values of its query string (a key sent there by
      // mistake stays out); of a response, its status is enough.
      serializers: {
        req: (req) => {
          const serialized = pino.stdSerializers.req(req);
          return { ...serialized, url: redactedUrl(serialized.url) };
        },
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
        err: pino.stdSerializers.err,
      },
      // Nest's `logger.error(message, stack)` arrives as `{err}` alone: its message stays the line's `msg`.
      hooks: {
        logMethod(args, method) {
          const [first] = args as unknown[];
          const err = args.length === 1 && typeof first === 'object' && first !== null ? (first as { err?: unknown }).err : undefined;
          return err instanceof Error ? method.call(this, first as object, err.message) : method.apply(this, args);
        },
      },
      // With tracing on, each line names the span it was written in (a no-op lookup otherwise).
      mixin: () => {
        const context = trace.getActiveSpan()?.spanContext();
        return context && isSpanContextValid(context) ? { trace_id: context.traceId, span_id: context.spanId } : {};
      },
    },
    // process.stdout as Nest's own logger used it: synchronous for files and (on Linux) pipes, so
    // the line before a `process.exit` is not lost, and what a test captures of it stays visible.
    process.stdout,
  );
  return root;
}

/** Loggers made with `child()` keep the level they were made with: set this before making any. */
export function setLogLevel(level: LogLevel): void {
  rootLogger().level = level;
}

/**
 * A logger for the lines that explain a non-zero exit (bad configuration, a failed start): they
 * are written even at LOG_LEVEL=silent, since the exit code alone says nothing.
 */
export function exitLogger(): Pino {
  const logger = rootLogger();
  return logger.isLevelEnabled('fatal') ? logger : logger.child({}, { level: 'fatal' as LevelWithSilent });
}

/**
 * Nest's LoggerService on nestjs-pino: every `new Logger('X').log(...)` in the code base, and
 * Nest's own start-up lines, become JSON lines with `context: 'X'`. They carry no request's id:
 * lines that must are written on the request's (or run's) own logger (request-context.ts).
 */
export function nestLogger(): NestPinoLogger {
  const params = { pinoHttp: { logger: rootLogger() } };
  return new NestPinoLogger(new PinoLogger(params), params);
}
