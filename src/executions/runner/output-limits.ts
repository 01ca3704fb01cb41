import { ExecutionCommand } from '../domain/execution-decide';

/** MAX_EVENTS_PER_EXECUTION and MAX_EVENT_BYTES as a session applies them (unbounded when absent). */
export interface OutputLimits {
  maxEvents?: number;
  maxEventBytes?: number;
}

/** Events one command appends at most, counting an answer for each action it asks. */
export function eventsOf(command: ExecutionCommand): number {
  if (command.type === 'emit') return command.output.reduce((n, o) => n + (o.type === 'action.required' ? 2 : 1), 0);
  return command.type === 'complete' ? 2 : 1;
}

/** UTF-8 bytes of the largest event a command appends, cheaply for the common small delta. */
function largestEventBytes(command: ExecutionCommand, bound: number): number {
  if (command.type === 'complete') return bytesOf({ text: command.text });
  if (command.type !== 'emit') return 0;
  let largest = 0;
  // Once per streamed delta: no array is made for it.
  for (const { data } of command.output) {
    const delta = (data as { delta?: unknown }).delta;
    // Three bytes per UTF-16 unit is the most UTF-8 needs, so short text needs no measuring.
    if (typeof delta === 'string' && delta.length * 3 + 64 < bound) continue;
    largest = Math.max(largest, bytesOf(data));
  }
  return largest;
}

const bytesOf = (data: unknown): number => Buffer.byteLength(JSON.stringify(data) ?? '', 'utf8');

/** Which bound the command would pass, if any. The run's end always keeps room for itself. */
export function limitProblem(command: ExecutionCommand, events: number, { maxEvents = Infinity, maxEventBytes = Infinity }: OutputLimits): string | null {
  if (command.type === 'emit' && events + eventsOf(command) > maxEvents - 2) {
    return `the execution reached ${maxEvents} events, the most one execution may have (MAX_EVENTS_PER_EXECUTION)`;
  }
  const bytes = maxEventBytes === Infinity ? 0 : largestEventBytes(command, maxEventBytes);
  if (bytes > maxEventBytes) {
    const what = command.type === 'complete' ? 'the output text' : `an ${command.type === 'emit' ? command.output[0].type : command.type} event`;
    return `${what} is ${bytes} bytes; one event may hold at most ${maxEventBytes} (MAX_EVENT_BYTES)`;
  }
  return null;
}
