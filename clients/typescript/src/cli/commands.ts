import type { RunledgerClient } from '../client';
import type { Execution, InputAnswer } from '../types';
import { EXIT, UsageError } from './exit-codes';
import type { Output } from './output';
import { follow, run } from './run';

export interface Flags {
  json: boolean;
  provider?: string;
  conversation?: string;
  config?: string;
  reason?: string;
  comment?: string;
  follow: boolean;
  after?: string;
  status?: string;
  limit?: string;
  'created-after'?: string;
  'created-before'?: string;
}

type Command = (client: RunledgerClient, out: Output, args: string[], flags: Flags) => Promise<number>;

const row = (e: Execution) => [e.id, e.status, e.provider, e.createdAt];

const int = (name: string, value: string | undefined): number | undefined => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a non-negative integer`);
  return Number(value);
};

const needs = (args: string[], names: string[]): string[] => {
  if (args.length !== names.length) throw new UsageError(`expected ${names.map((n) => `<${n}>`).join(' ') || 'no arguments'}`);
  return args;
};

/** What each subcommand does; `runledger help` prints the list (see clients/typescript/README.md). */
export const COMMANDS: Record<string, { usage: string; run: Command }> = {
  run: {
    usage: 'run [--provider P] [--conversation C] [--config file.json] "text"',
    run: (client, out, args, flags) =>
      run(client, out, { text: needs(args, ['text'])[0], provider: flags.provider ?? 'scripted', conversation: flags.conversation, config: flags.config }),
  },
  tail: {
    usage: 'tail <executionId> [--after N]',
    run: (client, out, args, flags) => follow(client, out, needs(args, ['executionId'])[0], { after: int('after', flags.after) ?? 0 }),
  },
  get: {
    usage: 'get <executionId>',
    run: async (client, out, args, flags) => {
      const execution = await client.execution(needs(args, ['executionId'])[0]);
      if (flags.json) out.value(execution);
      else out.table([['id', 'status', 'provider', 'created'], row(execution)]);
      if (!flags.json && execution.error) out.line(`error: ${execution.error.code}: ${execution.error.message}`);
      return EXIT.completed;
    },
  },
  ls: {
    usage: 'ls [--status S] [--provider P] [--conversation C] [--created-after T] [--created-before T] [--limit N]',
    run: async (client, out, args, flags) => {
      needs(args, []);
      const query = {
        status: flags.status as Execution['status'] | undefined,
        provider: flags.provider,
        conversationId: flags.conversation,
        createdAfter: flags['created-after'],
        createdBefore: flags['created-before'],
      };
      const limit = int('limit', flags.limit) ?? 20;
      const found: Execution[] = [];
      for await (const execution of client.searchAll({ ...query, limit: Math.min(limit, 100) })) {
        found.push(execution);
        if (found.length >= limit) break;
      }
      if (flags.json) out.value(found);
      else out.table([['id', 'status', 'provider', 'created'], ...found.map(row)]);
      return EXIT.completed;
    },
  },
  actions: {
    usage: 'actions <executionId>',
    run: async (client, out, args, flags) => {
      const actions = await client.actions(needs(args, ['executionId'])[0]);
      if (flags.json) out.value(actions);
      else out.table([['id', 'kind', 'status', 'prompt'], ...actions.map((a) => [a.id, a.kind, a.status, a.prompt])]);
      return EXIT.completed;
    },
  },
  approve: { usage: 'approve <executionId> <actionId> [--comment text]', run: (c, o, a, f) => decide(c, o, a, f, 'approve') },
  deny: { usage: 'deny <executionId> <actionId> [--comment text]', run: (c, o, a, f) => decide(c, o, a, f, 'deny') },
  answer: {
    usage: 'answer <executionId> <actionId> <json>',
    run: async (client, out, args, flags) => {
      const [id, actionId, json] = needs(args, ['executionId', 'actionId', 'json']);
      let value: InputAnswer['value'];
      try {
        value = JSON.parse(json) as InputAnswer['value'];
      } catch {
        throw new UsageError('<json> is not JSON');
      }
      return print(out, flags, await client.respond(id, actionId, { value }));
    },
  },
  cancel: {
    usage: 'cancel <executionId> [--reason text]',
    run: async (client, out, args, flags) => print(out, flags, await client.cancel(needs(args, ['executionId'])[0], { reason: flags.reason })),
  },
  providers: {
    usage: 'providers',
    run: async (client, out, args, flags) => {
      needs(args, []);
      const providers = await client.providers();
      if (flags.json) out.value(providers);
      else out.table([['id', 'name', 'capabilities'], ...providers.map((p) => [p.id, p.displayName, Object.keys(p.capabilities).join(' ')])]);
      return EXIT.completed;
    },
  },
  feed: {
    usage: 'feed [--after P] [--follow]',
    run: async (client, out, args, flags) => {
      needs(args, []);
      const after = int('after', flags.after) ?? 0;
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      const events = flags.follow ? client.feed({ after, signal: stop.signal }) : client.feedAll({ after });
      try {
        for await (const event of events) {
          if (flags.json) out.value(event);
          else out.line(`${event.position}  ${event.occurredAt}  ${event.executionId ?? event.conversationId}  ${event.type}`);
        }
      } catch (error) {
        if (!stop.signal.aborted) throw error;
      }
      return EXIT.completed;
    },
  },
};

async function decide(client: RunledgerClient, out: Output, args: string[], flags: Flags, decision: 'approve' | 'deny'): Promise<number> {
  const [id, actionId] = needs(args, ['executionId', 'actionId']);
  return print(out, flags, await client.respond(id, actionId, { decision, comment: flags.comment }));
}

function print(out: Output, flags: Flags, value: { id: string; status: string }): number {
  if (flags.json) out.value(value);
  else out.line(`${value.id} ${value.status}`);
  return EXIT.completed;
}
