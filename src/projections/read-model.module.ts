import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CONFIG, Config } from '../config/config';
import { EVENT_STORE } from '../event-store/event-store';
import { ExecutionIndex } from './execution-index/execution-index';
import { READ_MODEL_DB, openReadModelDatabase } from './read-model-database';

/** The read-model database and the projections kept in it. */
@Global()
@Module({
  providers: [
    {
      provide: READ_MODEL_DB,
      // The event store opens first: its lock is the one that tells a second process to go away.
      inject: [CONFIG, EVENT_STORE],
      useFactory: (config: Config) => {
        const db = openReadModelDatabase(config.readModelPath);
        new Logger('ReadModels').log(`read models at ${config.readModelPath}`);
        return db;
      },
    },
    ExecutionIndex,
  ],
  exports: [READ_MODEL_DB, ExecutionIndex],
})
export class ReadModelModule implements OnApplicationShutdown {
  constructor(@Inject(READ_MODEL_DB) private readonly db: Database.Database) {}

  onApplicationShutdown(): void {
    this.db.close();
  }
}
