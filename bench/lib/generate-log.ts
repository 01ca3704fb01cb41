import { v7 as uuidv7 } from 'uuid';
import { NewEvent } from '../../src/event-store/event-store';
import { SqliteEventStore } from '../../src/event-store/sqlite/sqlite-event-store';
import { EXECUTION_SCHEMA_VERSION } from '../../src/event-store/upcasters';

/** Events per generated execution: queued, started, deltas, done, completed (+ an action pair or an artifact now and then). */
export const EVENTS_PER_EXECUTION = 100;
const EXECUTIONS_PER_CONVERSATION = 10;
/** Executions appended per event-loop turn: the store commits them in one transaction. */
const PER_TURN = 200;

const meta = (correlationId: string, schemaVersion: number) => ({ tenantId: 'bench', schemaVersion, correlationId, causationId: null });

/**
 * One execution's events as the runner writes them (valid for `evolve`, so the projections do
 * their real work): every 10th has an approval asked and answered, every 10th (others) an artifact.
 */
export function executionEvents(id: string, conversationId: string, n: number, at: string): NewEvent[] {
  const m = meta(id, EXECUTION_SCHEMA_VERSION);
  const e = (type: string, data: Record<string, unknown>): NewEvent => ({ type, data, metadata: m, occurredAt: at });
  const events = [
    e('run.queued', { conversationId, provider: 'scripted', input: { text: `question ${n}` }, requiredCapabilities: [], config: {}, idempotencyKey: null }),
    e('run.started', { provider: 'scripted' }),
  ];
  if (n % 10 === 3) {
    const actionId = uuidv7();
    events.push(e('action.required', { actionId, kind: 'approval', prompt: 'go on?', inputSchema: null, tool: null }));
    events.push(e('action.responded', { actionId, response: { decision: 'approve', comment: null } }));
  }
  if (n % 10 === 7) {
    const artifact = { id: uuidv7(), executionId: id, name: 'out.txt', mediaType: 'text/plain', createdAt: at, uri: null, metadata: {} };
    events.push(e('artifact.created', { artifact }));
  }
  const deltas = EVENTS_PER_EXECUTION - events.length - 2;
  let text = '';
  for (let i = 0; i < deltas; i++) {
    const delta = `tok${i} `;
    text += delta;
    events.push(e('output.text.delta', { delta }));
  }
  events.push(e('output.text.done', { text }), e('run.completed', { usage: { inputTokens: 12, outputTokens: deltas } }));
  return events;
}

/**
 * Appends `executions` executions (100 events each) and one conversation per 10 of them through
 * the SQLite adapter itself, many streams per transaction; answers the execution ids.
 */
export async function generateLog(store: SqliteEventStore, executions: number, onProgress: (done: number) => void = () => {}): Promise<string[]> {
  const ids: string[] = [];
  const at = new Date().toISOString();
  let conversationId = '';
  for (let start = 0; start < executions; start += PER_TURN) {
    const appends: Promise<unknown>[] = [];
    for (let n = start; n < Math.min(executions, start + PER_TURN); n++) {
      if (n % EXECUTIONS_PER_CONVERSATION === 0) {
        conversationId = uuidv7();
        const created = { type: 'conversation.created', data: { title: `c${n}`, metadata: {} }, metadata: meta(conversationId, 1), occurredAt: at };
        appends.push(store.append(`conversation-${conversationId}`, [created], 'no_stream'));
      }
      const id = uuidv7();
      ids.push(id);
      appends.push(store.append(`execution-${id}`, executionEvents(id, conversationId, n, at), 'no_stream'));
    }
    await Promise.all(appends);
    onProgress(ids.length);
  }
  return ids;
}
