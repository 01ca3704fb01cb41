import { Inject, Injectable, Logger } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { EVENT_STORE, EventStore, StoredEvent } from '../../event-store/event-store';
import { ExecutionStatus } from '../../executions/domain/execution-state';
import { executionIdOf, isExecutionStream } from '../../executions/execution-stream';
import { asStoreUnavailable } from '../../event-store/sqlite/sqlite-errors';
import { Checkpoint, READ_MODEL_DB } from '../read-model-database';
import { EXECUTION_INDEX, prepareExecutionIndex } from './execution-index.schema';

export interface IndexedExecution {
  id: string;
  tenantId: string;
  conversationId: string;
  provider: string;
  status: ExecutionStatus;
  createdAt: string;
  inputText: string;
  outputText: string | null;
  pendingActions: number;
}

const CHUNK = 5000;
/** The only events the index reads: deltas, the bulk of the log, never leave the store. */
const INDEXED_TYPES = [
  'run.queued',
  'run.started',
  'action.required',
  'action.responded',
  'output.text.done',
  'run.completed',
  'run.failed',
  'run.cancelled',
];
const COLUMNS = `id, tenant_id AS tenantId, conversation_id AS conversationId, provider, status, created_at AS createdAt,
  input_text AS inputText, output_text AS outputText, pending_actions AS pendingActions`;
const STATUS_OF: Record<string, ExecutionStatus> = {
  'run.started': 'running',
  'run.completed': 'completed',
  'run.failed': 'failed',
  'run.cancelled': 'cancelled',
};

/**
 * A small read model of every execution (its tenant, conversation and status), projected from
 * `$all` into the read-model database with its checkpoint in the same transaction. It answers
 * what no single stream can: a conversation's executions, earlier turns for
 * `conversation.history`, and which executions were in flight at start (rule 9).
 *
 * Pull-based: every query first applies what was appended since the checkpoint, so a read right
 * after a write sees it (read-your-writes) without a background subscription, and a restart
 * resumes from the checkpoint instead of re-reading the log.
 */
@Injectable()
export class ExecutionIndex {
  private readonly logger = new Logger('ExecutionIndex');
  private readonly checkpoint: Checkpoint;
  private pulling: Promise<void> = Promise.resolve();
  private checkpointVerified = false;
  private readonly statements;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
  ) {
    if (prepareExecutionIndex(db) === 'created') this.logger.log('execution index (re)built from the event log');
    this.checkpoint = new Checkpoint(db, EXECUTION_INDEX);
    this.statements = {
      insert: db.prepare(
        `INSERT OR IGNORE INTO execution_index (id, tenant_id, conversation_id, provider, status, created_at, input_text, position)
         VALUES (?, ?, ?, ?, 'queued', ?, ?, ?)`,
      ),
      setStatus: db.prepare('UPDATE execution_index SET status = ? WHERE id = ?'),
      actionRequired: db.prepare(
        "UPDATE execution_index SET pending_actions = pending_actions + 1, status = 'requires_action' WHERE id = ?",
      ),
      actionResponded: db.prepare(
        `UPDATE execution_index SET pending_actions = pending_actions - 1,
           status = CASE WHEN pending_actions = 1 THEN 'running' ELSE status END WHERE id = ?`,
      ),
      outputText: db.prepare('UPDATE execution_index SET output_text = ? WHERE id = ?'),
      get: db.prepare(`SELECT ${COLUMNS} FROM execution_index WHERE id = ?`),
      ofConversation: db.prepare(`SELECT ${COLUMNS} FROM execution_index WHERE conversation_id = ? ORDER BY position`),
      inFlight: db.prepare(
        `SELECT ${COLUMNS} FROM execution_index WHERE status IN ('queued', 'running', 'requires_action') ORDER BY position`,
      ),
    };
  }

  /** Resolves once every event acknowledged before the call has been applied. */
  catchUp(): Promise<void> {
    // One failed pull (a store hiccup) fails its own callers, not every later query.
    this.pulling = this.pulling.catch(() => undefined).then(() => this.pull());
    return this.pulling;
  }

  async get(executionId: string): Promise<IndexedExecution | undefined> {
    await this.catchUp();
    return this.statements.get.get(executionId) as IndexedExecution | undefined;
  }

  async ofConversation(conversationId: string): Promise<IndexedExecution[]> {
    await this.catchUp();
    return this.statements.ofConversation.all(conversationId) as IndexedExecution[];
  }

  async nonTerminal(): Promise<IndexedExecution[]> {
    await this.catchUp();
    return this.statements.inFlight.all() as IndexedExecution[];
  }

  private async pull(): Promise<void> {
    if (!this.checkpointVerified) await this.verifyCheckpoint();
    for (;;) {
      const events = await this.store.readAll({ after: this.checkpoint.position, limit: CHUNK, types: INDEXED_TYPES });
      if (events.length === 0) return;
      try {
        this.db.transaction(() => {
          for (const event of events) this.apply(event);
          this.checkpoint.position = events[events.length - 1].position;
        })();
      } catch (error) {
        // Rolled back with its checkpoint: the next query retries the same batch.
        throw asStoreUnavailable(error, 'the read-model file');
      }
      if (events.length < CHUNK) return;
    }
  }

  /**
   * A checkpoint must name an event the log holds. If it does not (the events were replaced, the
   * read-model file belongs to another store), the index starts again from the beginning.
   */
  private async verifyCheckpoint(): Promise<void> {
    const position = this.checkpoint.position;
    if (position > 0) {
      const [event] = await this.store.readAll({ after: position - 1, limit: 1 });
      if (event?.position !== position) {
        this.logger.warn(`checkpoint ${position} is not in the event log: rebuilding the execution index`);
        prepareExecutionIndex(this.db, { force: true });
      }
    }
    this.checkpointVerified = true;
  }

  private apply(event: StoredEvent): void {
    if (!isExecutionStream(event.streamId)) return;
    const id = executionIdOf(event.streamId);
    const s = this.statements;
    switch (event.type) {
      case 'run.queued': {
        const data = event.data as { conversationId: string; provider: string; input: { text: string } };
        s.insert.run(id, event.metadata.tenantId, data.conversationId, data.provider, event.occurredAt, data.input.text, event.position);
        return;
      }
      case 'action.required':
        s.actionRequired.run(id);
        return;
      case 'action.responded':
        s.actionResponded.run(id);
        return;
      case 'output.text.done':
        s.outputText.run((event.data as { text: string }).text, id);
        return;
      default:
        if (STATUS_OF[event.type]) s.setStatus.run(STATUS_OF[event.type], id);
    }
  }
}
