import type Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Config } from '../config/config';
import { EventStore } from '../event-store/event-store';
import { EventStoreGateway } from '../event-store/event-store-gateway';
import { EventStoreDbEventStore } from '../event-store/eventstoredb/eventstoredb-event-store';
import { PostgresEventStore } from '../event-store/postgres/postgres-event-store';
import { EventStoreFileLockedError, SqliteEventStore } from '../event-store/sqlite/sqlite-event-store';
import { openReadModelDatabase } from '../read-models/read-model-database';
import { CliError } from './cli';

const STOP_FIRST = 'stop the Runledger server that uses it, then run this again';

/**
 * The configured event store, opened for a command run while the server is stopped. On SQLite
 * this takes the file's lock, exactly as the server does: while a server holds it this refuses,
 * and while the command runs no server can start on it. Reads go through the gateway, so they
 * come back upcast like every other read path.
 */
export async function openOfflineStore(config: Config): Promise<EventStore> {
  if (config.eventStore === 'eventstoredb') {
    return new EventStoreGateway(await EventStoreDbEventStore.connect(config.eventStoreDbConnectionString!));
  }
  // A shared database has no lock to take: the commands only read it, beside running servers.
  if (config.eventStore === 'postgres') return new EventStoreGateway(await PostgresEventStore.connect(config.databaseUrl!));
  // Opening would create an empty store: a typo in SQLITE_PATH must not look like an empty log.
  if (!existsSync(config.sqlitePath)) throw new CliError(`no event store at ${resolve(config.sqlitePath)} (SQLITE_PATH)`);
  try {
    return new EventStoreGateway(SqliteEventStore.open(config.sqlitePath));
  } catch (error) {
    if (error instanceof EventStoreFileLockedError) throw new CliError(`${error.message}: ${STOP_FIRST}`);
    throw error;
  }
}

/**
 * The live read-model file, locked like the server locks it (a server holding it makes this
 * refuse). `mustExist`: a command that only reads it refuses rather than creating an empty one.
 */
export function openOfflineReadModels(config: Config, mustExist = false): { db: Database.Database; close(): void } {
  if (mustExist && !existsSync(config.readModelPath)) throw new CliError(`no read models at ${resolve(config.readModelPath)} (READ_MODEL_PATH)`);
  try {
    return openReadModelDatabase(config.readModelPath);
  } catch (error) {
    if (/in use/.test((error as Error).message)) throw new CliError(`${(error as Error).message}: ${STOP_FIRST}`);
    throw error;
  }
}
