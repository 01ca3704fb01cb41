import { createInterface, type Interface } from 'node:readline';
import type { ApprovalAnswer, EventDataByType, InputAnswer } from '../types';

export type Answer = ApprovalAnswer | InputAnswer;

/**
 * Asks at the terminal for an action's answer. The questions go to stderr, so stdout keeps only
 * the run's output (and stays valid JSON lines with `--json`). The server checks an input
 * answer against the action's schema: a refused answer is shown and asked again.
 */
export class Prompter {
  private readonly rl: Interface;

  constructor(onInterrupt: () => void) {
    this.rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true });
    // A raw-mode terminal gives Ctrl-C to readline rather than to the process.
    this.rl.on('SIGINT', onInterrupt);
  }

  /** The answer, or null when `signal` aborts first (the run was cancelled meanwhile). */
  async answer(action: EventDataByType['action.required'], signal: AbortSignal): Promise<Answer | null> {
    if (action.kind === 'approval') {
      for (;;) {
        const reply = await this.ask(`${action.prompt} [y]es / [n]o (a comment may follow): `, signal);
        if (reply === null) return null;
        const [word, ...rest] = reply.trim().split(/\s+/);
        const comment = rest.join(' ') || undefined;
        if (/^(y|yes|approve)$/i.test(word)) return { decision: 'approve', comment };
        if (/^(n|no|deny)$/i.test(word)) return { decision: 'deny', comment };
      }
    }
    const schema = action.inputSchema ? ` (JSON matching ${JSON.stringify(action.inputSchema)})` : ' (any JSON value)';
    for (;;) {
      const reply = await this.ask(`${action.prompt}${schema}: `, signal);
      if (reply === null) return null;
      try {
        return { value: JSON.parse(reply) as InputAnswer['value'] };
      } catch {
        process.stderr.write('that is not JSON; try again\n');
      }
    }
  }

  private ask(question: string, signal: AbortSignal): Promise<string | null> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve(null);
      signal.addEventListener('abort', () => resolve(null), { once: true });
      this.rl.question(question, { signal }, resolve);
    });
  }

  close(): void {
    this.rl.close();
  }
}
