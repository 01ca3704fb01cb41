import type Database from 'better-sqlite3';
import { PROJECTION_SETS, ProjectionSetName } from './projection-sets';
import { ProjectorClient } from './projector-client';
import { connectReadModelFile, lockReadModelFile, openReadModelDatabase } from './read-model-database';
import { ReadModelTransaction } from './read-model-transaction';
import { ReadModelWriter } from './read-model-writer';

export const READ_MODEL_FILE = Symbol('READ_MODEL_FILE');

/** A read-model file as the server holds it: the connection its queries read, and what writes it. */
export interface ReadModelFile {
  readonly db: Database.Database;
  readonly writer: ReadModelWriter;
  /** After the projector has stopped. */
  close(): Promise<void>;
}

/**
 * Opens the file with the projections of `set`: written by the projector thread (`thread`), or on
 * the event loop by the connection that also answers the queries (`inline`). The thread prepares
 * the projections (creates, rebuilds) before the queries' connection opens, so the read models
 * prepare their statements over tables that exist.
 */
export async function openReadModelFile(path: string, set: ProjectionSetName, mode: 'thread' | 'inline'): Promise<ReadModelFile> {
  if (mode === 'inline') {
    const opened = openReadModelDatabase(path);
    try {
      return { db: opened.db, writer: new ReadModelTransaction(opened.db, PROJECTION_SETS[set]), close: async () => opened.close() };
    } catch (error) {
      opened.close();
      throw error;
    }
  }
  const { file, lock } = lockReadModelFile(path);
  const writer = await ProjectorClient.start({ file, projections: set }).catch((error: unknown) => {
    lock.close();
    throw error;
  });
  try {
    const db = connectReadModelFile(file);
    const close = async () => {
      await writer.close();
      db.close();
      lock.close();
    };
    return { db, writer, close };
  } catch (error) {
    await writer.close();
    lock.close();
    throw error;
  }
}

/** How the file is written, for the log line at start. */
export const writtenBy = (mode: 'thread' | 'inline') => (mode === 'thread' ? 'written by the projector thread' : 'written on the event loop');
