import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

const EXIT_MARK = '__exit=';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/**
 * Like the browser suites: without tmux the terminal suites are skipped with a one-line reason,
 * unless RUNLEDGER_TERMINAL_REQUIRED=1 (set by .ci/run, which installs tmux) makes that a failure.
 */
export function describeInTerminal(name: string, body: () => void): void {
  if (!hasTmux && process.env.RUNLEDGER_TERMINAL_REQUIRED !== '1') {
    process.stderr.write(`${name}: skipped, no tmux (apt-get install tmux)\n`);
    describe.skip(name, body);
    return;
  }
  describe(name, body);
}

/**
 * A real pseudo-terminal for a command, through tmux: the command sees a TTY on stdin and stdout,
 * keys are typed into it and the screen is read back, as a person at a terminal would. Each
 * terminal has its own tmux server (`-L`), so tests never touch a user's sessions.
 */
export class Terminal {
  private readonly socket = `runledger-${randomUUID()}`;

  private constructor() {}

  static open(command: string, env: Record<string, string> = {}): Terminal {
    const terminal = new Terminal();
    const exports = Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`);
    // After the command the shell prints its status and waits, so the screen can still be read.
    // Its trap keeps a Ctrl-C meant for the command from ending the shell too (the command itself
    // still gets the default handling: a trap's action is not inherited).
    const script = `trap 'true' INT; env ${exports.join(' ')} ${command}; echo ${EXIT_MARK}$?; sleep 600`;
    terminal.tmux('new-session', '-d', '-x', '200', '-y', '50', 'sh', '-c', script);
    return terminal;
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-200');
  }

  type(...keys: string[]): void {
    this.tmux('send-keys', ...keys);
  }

  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > until) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async exitCode(): Promise<number> {
    const screen = await this.waitFor(new RegExp(`${EXIT_MARK}\\d+`));
    return Number(new RegExp(`${EXIT_MARK}(\\d+)`).exec(screen)![1]);
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // Already gone.
    }
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }
}

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;
