#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { RunledgerClient } from '../client';
import { RunledgerError } from '../errors';
import { COMMANDS, Flags } from './commands';
import { EXIT, UsageError } from './exit-codes';
import { Output } from './output';

const OPTIONS = {
  json: { type: 'boolean', default: false },
  provider: { type: 'string' },
  conversation: { type: 'string' },
  config: { type: 'string' },
  reason: { type: 'string' },
  comment: { type: 'string' },
  follow: { type: 'boolean', default: false },
  after: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  'created-after': { type: 'string' },
  'created-before': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const usage = () =>
  [
    'usage: runledger <command> [options] [--json]',
    '',
    ...Object.values(COMMANDS).map(({ usage }) => `  runledger ${usage}`),
    '',
    'RUNLEDGER_URL is the server (default http://127.0.0.1:3000), RUNLEDGER_API_KEY its key.',
  ].join('\n');

/** The `runledger` command: parses the line, runs one subcommand, and exits with what it answered. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage()}\n`);
    return EXIT.usage;
  }
  const [name, ...args] = parsed.positionals;
  const command = name === undefined ? undefined : COMMANDS[name];
  if (parsed.values.help || command === undefined) {
    (command === undefined && name !== undefined && name !== 'help' ? process.stderr : process.stdout).write(`${usage()}\n`);
    return name === undefined || name === 'help' || parsed.values.help ? EXIT.completed : EXIT.usage;
  }
  const flags = parsed.values as Flags;
  const out = new Output(flags.json);
  const client = new RunledgerClient({ baseUrl: env.RUNLEDGER_URL ?? 'http://127.0.0.1:3000', apiKey: env.RUNLEDGER_API_KEY });
  try {
    return await command.run(client, out, args, flags);
  } catch (error) {
    if (error instanceof UsageError) {
      out.problem(`runledger ${command.usage}: ${error.message}`);
      return EXIT.usage;
    }
    if (flags.json && error instanceof RunledgerError)
      out.problem(JSON.stringify({ error: { code: error.code, status: error.status, message: error.message, details: error.details } }));
    else out.problem(error instanceof RunledgerError ? `error: ${error.code}: ${error.message}` : `error: ${String(error)}`);
    return EXIT.error;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
