import { Logger, LoggerService } from '@nestjs/common';
import { parseArgs, ParseArgsConfig } from 'node:util';
import { ConfigError } from '../config/config';

/** A problem the user can fix (a server holds the file, a bad option): its message alone, exit 1. */
export class CliError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * Nest's default logger writes to stdout; the commands keep stdout for their output (export's
 * NDJSON, verify's report), so whatever the shared code logs goes to stderr, warnings and up.
 */
class StderrLogger implements LoggerService {
  log(): void {}
  warn(message: unknown, context?: string): void {
    process.stderr.write(`${context ? `[${context}] ` : ''}${String(message)}\n`);
  }
  error(message: unknown, _trace?: string, context?: string): void {
    this.warn(message, context);
  }
}

/** Parses `argv` strictly: an unknown or malformed option is a CliError that shows the usage. */
export function cliOptions<T extends NonNullable<ParseArgsConfig['options']>>(options: T, usage: string, argv = process.argv.slice(2)) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new CliError(`${(error as Error).message}\nusage: ${usage}`);
  }
}

/** Runs a command: its result is the exit code; a CliError or ConfigError prints its message, anything else its stack. */
export function runCli(main: () => Promise<number>): void {
  Logger.overrideLogger(new StderrLogger());
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(error instanceof CliError || error instanceof ConfigError ? `${error.message}\n` : `${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
