import { BeforeApplicationShutdown, Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CONFIG, Config } from '../config/config';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { EventStoreGateway } from '../event-store/event-store-gateway';
import { actionsProjection } from './actions/actions.projection';
import { artifactsProjection } from './artifacts/artifacts.projection';
import { ConversationsReadModel } from './conversations/conversations.read-model';
import { conversationsProjection } from './conversations/conversations.projection';
import { ConversationHistory } from './executions/conversation-history';
import { ExecutionsReadModel } from './executions/executions.read-model';
import { executionsProjection } from './executions/executions.projection';
import { ExecutionItemsReadModel } from './items.read-model';
import { ReadConsistency } from './read-consistency';
import { READ_MODEL_DB, openReadModelDatabase } from './read-model-database';
import { Projector } from './projector';
import { WriteWatermark } from './write-watermark';

/** A query over the tables the projector creates: Nest builds it after the projector. */
const afterProjector =
  <T>(build: (db: Database.Database) => T) =>
  (db: Database.Database, _projector: Projector): T =>
    build(db);

/** Every projection the projector feeds, in the order it applies them. */
export const PROJECTIONS = [executionsProjection, actionsProjection, artifactsProjection, conversationsProjection];

/** The read-model database, the projector that feeds it, and the queries over it. */
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
    {
      provide: WriteWatermark,
      inject: [EVENT_STORE],
      useFactory: (store: EventStore) => {
        const watermark = new WriteWatermark();
        if (store instanceof EventStoreGateway) store.observe(watermark);
        return watermark;
      },
    },
    {
      provide: Projector,
      inject: [EVENT_STORE, READ_MODEL_DB],
      useFactory: (store: EventStore, db: Database.Database) => new Projector(store, db, PROJECTIONS),
    },
    { provide: ReadConsistency, inject: [Projector, WriteWatermark], useFactory: (p: Projector, w: WriteWatermark) => new ReadConsistency(p, w) },
    { provide: ExecutionsReadModel, inject: [READ_MODEL_DB, Projector], useFactory: afterProjector((db) => new ExecutionsReadModel(db)) },
    { provide: ExecutionItemsReadModel, inject: [READ_MODEL_DB, Projector], useFactory: afterProjector((db) => new ExecutionItemsReadModel(db)) },
    { provide: ConversationsReadModel, inject: [READ_MODEL_DB, Projector], useFactory: afterProjector((db) => new ConversationsReadModel(db)) },
    {
      provide: ConversationHistory,
      inject: [ReadConsistency, ExecutionsReadModel, CONFIG],
      useFactory: (c: ReadConsistency, e: ExecutionsReadModel, config: Config) => new ConversationHistory(c, e, config.historyMaxTurns),
    },
  ],
  exports: [READ_MODEL_DB, Projector, ReadConsistency, ExecutionsReadModel, ExecutionItemsReadModel, ConversationsReadModel, ConversationHistory],
})
export class ReadModelModule implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(READ_MODEL_DB) private readonly db: Database.Database,
    private readonly projector: Projector,
  ) {}

  onModuleInit(): void {
    this.projector.start();
  }

  /** Before the store closes: the subscription ends, the batch in hand is written or left for the next start. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.projector.stop();
  }

  onApplicationShutdown(): void {
    this.db.close();
  }
}
