import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RunledgerClient } from '../../clients/typescript/src';
import { useApp } from '../support/app-harness';
import { Terminal, describeInTerminal } from '../support/terminal';

const CLI = join(__dirname, '..', '..', 'clients', 'typescript', 'bin', 'runledger.js');
const run = promisify(execFile);

const configFile = (config: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'runledger-cli-')), 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
};

/** The `runledger` command, built by `npm run build`, in a real terminal (tmux) and through pipes. */
describeInTerminal('runledger CLI', () => {
  const ctx = useApp({ conversation: true });
  const terminals: Terminal[] = [];
  const env = () => ({ RUNLEDGER_URL: ctx.baseUrl });
  const terminal = (args: string) => {
    const t = Terminal.open(`node ${CLI} ${args}`, env());
    terminals.push(t);
    return t;
  };
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env() } });

  beforeAll(() => {
    if (!existsSync(join(CLI, '..', '..', 'dist', 'cli', 'main.js'))) throw new Error('the CLI is not built: run npm run build first');
  });
  afterEach(() => terminals.splice(0).forEach((t) => t.close()));

  it('runs with the text streamed, asks for an approval at the prompt, and exits 0 when the run completes', async () => {
    const config = configFile({
      script: [
        { type: 'text', text: 'Drafting. ' },
        { type: 'action', kind: 'approval', prompt: 'Publish the draft?' },
        { type: 'text', text: 'Published.' },
      ],
    });
    const t = terminal(`run --config ${config} "write it"`);
    await t.waitFor(/Publish the draft\? \[y\]es/);
    expect(t.screen()).toContain('Drafting.');
    t.type('y looks good', 'Enter');
    expect(await t.exitCode()).toBe(0);
    expect(t.screen()).toMatch(/Published\./);
  });

  it('asks again when the server refuses an input answer, then goes on', async () => {
    const config = configFile({
      script: [
        { type: 'action', kind: 'input', prompt: 'How many?', inputSchema: { type: 'integer' } },
        { type: 'text', text: 'Counted.' },
      ],
    });
    const t = terminal(`run --config ${config} "count"`);
    await t.waitFor(/How many\?/);
    t.type('"many"', 'Enter');
    await t.waitFor(/refused: /);
    t.type('42', 'Enter');
    expect(await t.exitCode()).toBe(0);
    expect(t.screen()).toContain('Counted.');
  });

  it('cancels the execution on Ctrl-C and exits 130', async () => {
    const config = configFile({
      script: [
        { type: 'text', text: 'Working… ' },
        { type: 'delay', ms: 60_000 },
      ],
    });
    const t = terminal(`run --config ${config} "slow"`);
    const screen = await t.waitFor(/Working…/);
    const id = /execution (\S+)/.exec(screen)![1];
    t.type('C-c');
    expect(await t.exitCode()).toBe(130);
    const execution = await new RunledgerClient({ baseUrl: ctx.baseUrl }).execution(id);
    expect(execution).toMatchObject({ status: 'cancelled', cancellation: { reason: 'cancelled from the runledger CLI (Ctrl-C)' } });
  });

  it('prints JSON lines with --json and says how the run ended in its exit code', async () => {
    const failing = configFile({
      script: [
        { type: 'text', text: 'a' },
        { type: 'fail', message: 'it broke' },
      ],
    });
    const failed = await cli('run', '--json', '--conversation', ctx.conversationId, '--config', failing, 'go').catch(
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed).toMatchObject({ code: 1 });
    const events = (failed as { stdout: string }).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; executionId: string });
    expect(events.map((e) => e.type)).toEqual(['run.queued', 'run.started', 'output.text.delta', 'run.failed']);
    const id = events[0].executionId;

    const got = JSON.parse((await cli('get', id, '--json')).stdout) as { id: string; status: string };
    expect(got).toMatchObject({ id, status: 'failed' });
    const listed = JSON.parse((await cli('ls', '--json', '--conversation', ctx.conversationId, '--status', 'failed')).stdout) as { id: string }[];
    expect(listed.map((e) => e.id)).toContain(id);
    const tail = await cli('tail', id, '--json').catch((error: { code: number; stdout: string }) => error);
    expect(tail).toMatchObject({ code: 1 });
    const providers = JSON.parse((await cli('providers', '--json')).stdout) as { id: string }[];
    expect(providers.map((p) => p.id)).toContain('scripted');
  });

  it('answers an action and cancels from the command line, and reports refusals with exit 3', async () => {
    const client = new RunledgerClient({ baseUrl: ctx.baseUrl });
    const { execution } = await client.start({
      conversationId: ctx.conversationId,
      provider: 'scripted',
      input: { text: 'x' },
      config: {
        script: [
          { type: 'action', kind: 'approval', prompt: 'ok?' },
          { type: 'delay', ms: 60_000 },
        ],
      },
    });
    let actions = await client.actions(execution.id);
    while (actions.length === 0) actions = await client.actions(execution.id);
    const listed = JSON.parse((await cli('actions', execution.id, '--json')).stdout) as { id: string; status: string }[];
    expect(listed).toEqual([expect.objectContaining({ id: actions[0].id, status: 'pending' })]);
    expect((await cli('approve', execution.id, actions[0].id, '--comment', 'fine')).stdout).toContain('resolved');
    const again = await cli('approve', execution.id, actions[0].id).catch((error: { code: number; stderr: string }) => error);
    expect(again).toMatchObject({ code: 3, stderr: expect.stringContaining('ACTION_ALREADY_RESOLVED') });
    expect((await cli('cancel', execution.id, '--reason', 'from the test')).stdout).toMatch(/cancelled/);
    const usage = await cli('get').catch((error: { code: number }) => error);
    expect(usage).toMatchObject({ code: 64 });
  });
});
