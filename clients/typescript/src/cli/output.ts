import type { Writable } from 'node:stream';

/** Where a command writes: machine-readable JSON with `--json`, words for people otherwise; progress only on a terminal. */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly out: Writable & { isTTY?: boolean } = process.stdout,
    private readonly err: Writable = process.stderr,
  ) {}

  get interactive(): boolean {
    return this.out.isTTY === true && !this.json;
  }

  /** One JSON value per line, so a stream of them can be read line by line. */
  value(value: unknown): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }

  text(text: string): void {
    this.out.write(text);
  }

  line(text = ''): void {
    this.out.write(`${text}\n`);
  }

  /** A note about progress: on stderr, and only when a person is watching stdout. */
  progress(text: string): void {
    if (this.out.isTTY === true) this.err.write(`\x1b[2m${text}\x1b[0m\n`);
  }

  problem(text: string): void {
    this.err.write(`${text}\n`);
  }

  /** Rows of columns, aligned, for `ls`-like commands. */
  table(rows: string[][]): void {
    const widths = rows.reduce<number[]>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), []);
    for (const row of rows) this.line(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  '));
  }
}
