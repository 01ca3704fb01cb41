/** One line of the server's log as it writes it (observability/logger.ts). */
export interface LogLine {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  time: string;
  msg?: string;
  context?: string;
  reqId?: string;
  executionId?: string;
  [field: string]: unknown;
}

/** Every line of `stdout` parsed as one JSON object; throws naming the first line that is not. */
export function logLines(stdout: string): LogLine[] {
  const lines = stdout.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, i) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`log line ${i + 1} is not JSON: ${line}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`log line ${i + 1} is not an object: ${line}`);
    return parsed as LogLine;
  });
}

/** The messages of every line, one per line: what the plain-text logs used to say. */
export const logMessages = (stdout: string): string =>
  logLines(stdout)
    .map((line) => line.msg ?? '')
    .join('\n');
