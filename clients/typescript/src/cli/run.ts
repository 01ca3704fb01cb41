import { readFileSync } from 'node:fs';
import type { RunledgerClient } from '../client';
import { RunledgerError } from '../errors';
import type { EventDataByType, TypedEvent } from '../types';
import { EXIT, exitOf } from './exit-codes';
import type { Output } from './output';
import { Answer, Prompter } from './prompt';

export interface RunOptions {
  text: string;
  provider: string;
  conversation?: string;
  config?: string;
}

export const CTRL_C_REASON = 'cancelled from the runledger CLI (Ctrl-C)';

/** `runledger run`: starts an execution and follows it to its end, asking at the terminal for what it needs. */
export async function run(client: RunledgerClient, out: Output, options: RunOptions): Promise<number> {
  const config = options.config === undefined ? undefined : (JSON.parse(readFileSync(options.config, 'utf8')) as Record<string, unknown>);
  const conversationId = options.conversation ?? (await client.createConversation()).id;
  const { execution } = await client.start({ conversationId, provider: options.provider, input: { text: options.text }, config });
  out.progress(`execution ${execution.id} (conversation ${conversationId})`);
  return follow(client, out, execution.id, { interactive: true });
}

/** Prints an execution's events until its terminal event; with `interactive`, answers its actions and cancels it on Ctrl-C. */
export async function follow(client: RunledgerClient, out: Output, id: string, { interactive = false, after = 0 } = {}): Promise<number> {
  const stop = new AbortController();
  const onInterrupt = () => {
    if (stop.signal.aborted) return;
    stop.abort();
    out.progress('cancelling…');
    client.cancel(id, { reason: CTRL_C_REASON }).catch((error: unknown) => out.problem(`could not cancel: ${String(error)}`));
  };
  if (interactive) process.on('SIGINT', onInterrupt);
  let prompter: Prompter | undefined;
  let status = 'failed';
  let midLine = false;
  try {
    for await (const event of client.events(id, { after, onReconnect: (error, ms) => out.progress(`stream dropped (${error.code}); resuming in ${ms} ms`) })) {
      if (out.json) out.value(event);
      else midLine = show(out, event, midLine);
      if (event.type === 'run.completed' || event.type === 'run.failed' || event.type === 'run.cancelled') status = event.type.slice(4);
      if (event.type === 'action.required' && interactive && !stop.signal.aborted) {
        prompter ??= new Prompter(onInterrupt);
        await answer(client, out, id, event.data, prompter, stop.signal);
      }
    }
  } finally {
    if (interactive) process.off('SIGINT', onInterrupt);
    prompter?.close();
  }
  if (midLine) out.line();
  return stop.signal.aborted ? EXIT.interrupted : exitOf(status);
}

/** Text as it streams; the other events as a short note when a person is watching. */
function show(out: Output, event: TypedEvent, midLine: boolean): boolean {
  const note = (text: string) => {
    if (midLine) out.line();
    out.progress(text);
    return false;
  };
  switch (event.type) {
    case 'output.text.delta':
      out.text(event.data.delta);
      return true;
    case 'action.required':
      return note(`action ${event.data.actionId} (${event.data.kind}): ${event.data.prompt}`);
    case 'artifact.created':
      return note(`artifact ${event.data.artifact.name} (${event.data.artifact.mediaType})`);
    case 'run.failed':
      if (midLine) out.line();
      out.problem(`failed: ${event.data.error.code}: ${event.data.error.message}`);
      return false;
    case 'run.cancelled':
      return note(`cancelled${event.data.reason ? `: ${event.data.reason}` : ''}`);
    case 'run.completed':
      return note('completed');
    default:
      return midLine;
  }
}

async function answer(
  client: RunledgerClient,
  out: Output,
  id: string,
  action: EventDataByType['action.required'],
  prompter: Prompter,
  signal: AbortSignal,
): Promise<void> {
  for (;;) {
    const reply: Answer | null = await prompter.answer(action, signal);
    if (reply === null) return;
    try {
      await client.respond(id, action.actionId, reply);
      return;
    } catch (error) {
      // Someone else answered, or the run ended meanwhile: the stream says what happened next.
      if (error instanceof RunledgerError && (error.code === 'ACTION_ALREADY_RESOLVED' || error.code === 'INVALID_STATE')) return;
      if (!(error instanceof RunledgerError) || error.code !== 'VALIDATION_ERROR') throw error;
      out.problem(`refused: ${error.message}`);
    }
  }
}
