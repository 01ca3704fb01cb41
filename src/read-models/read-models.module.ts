import { BeforeApplicationShutdown, Global, Inject, Logger, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CONFIG, Config } from '../config/config';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { EventStoreGateway, inFlightOf } from '../event-store/event-store-gateway';
import { ActionsReadModel } from './actions/actions.read-model';
import { ListActionsHandler } from './actions/list-actions.handler';
import { ArtifactsReadModel } from './artifacts/artifacts.read-model';
import { ListArtifactsHandler } from './artifacts/list-artifacts.handler';
import { ConversationsReadModel } from './conversations/conversations.read-model';
import { GetConversationHandler } from './conversations/get-conversation.handler';
import { ConversationHistory } from './executions/conversation-history';
import { ExecutionReader } from './executions/execution-reader';
import { ExecutionsOfConversationHandler } from './executions/executions-of-conversation.handler';
import { ExecutionsReadModel } from './executions/executions.read-model';
import { GetExecutionHandler } from './executions/get-execution.handler';
import { InFlightExecutions } from './executions/in-flight-executions';
import { SearchExecutionsHandler } from './executions/search-executions.handler';
import { Projector } from './projector';
import { ReadConsistency } from './read-consistency';
import { READ_MODEL_DB } from './read-model-database';
import { READ_MODEL_FILE, ReadModelFile, openReadModelFile, writtenBy } from './read-model-file';
import { WriteWatermark } from './write-watermark';
import { TenantTokensHandler, UsageSummaryHandler } from './usage/usage-summary.handler';
import { UsageReadModel } from './usage/usage.read-model';

/** A query over the tables the projector creates: Nest builds it after the projector. */
const afterProjector = <T>(build: (db: Database.Database) => T) => ({
  inject: [READ_MODEL_DB, Projector],
  useFactory: (db: Database.Database, _projector: Projector): T => build(db),
});

/**
 * The read-model database, the projector that feeds it, and each read model's queries: global,
 * so a feature's runner or sweep can take the small query it needs (ConversationHistory,
 * InFlightExecutions) by constructor injection.
 */
@Global()
@Module({
  providers: [
    {
      provide: READ_MODEL_FILE,
      // The event store opens first: its lock is the one that tells a second process to go away.
      inject: [CONFIG, EVENT_STORE],
      useFactory: async (config: Config) => {
        const file = await openReadModelFile(config.readModelPath, 'main', config.readModelWriter);
        new Logger('ReadModels').log(`read models at ${config.readModelPath} (${writtenBy(config.readModelWriter)})`);
        return file;
      },
    },
    { provide: READ_MODEL_DB, inject: [READ_MODEL_FILE], useFactory: (file: ReadModelFile) => file.db },
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
      inject: [EVENT_STORE, READ_MODEL_FILE],
      useFactory: (store: EventStore, file: ReadModelFile) => new Projector(store, file.writer),
    },
    {
      provide: ReadConsistency,
      inject: [Projector, WriteWatermark, EVENT_STORE],
      useFactory: (p: Projector, w: WriteWatermark, store: EventStore) => new ReadConsistency(p, w, inFlightOf(store)),
    },
    // executions/
    { provide: ExecutionsReadModel, ...afterProjector((db) => new ExecutionsReadModel(db)) },
    ExecutionReader,
    GetExecutionHandler,
    SearchExecutionsHandler,
    ExecutionsOfConversationHandler,
    {
      provide: ConversationHistory,
      inject: [ReadConsistency, ExecutionsReadModel, CONFIG],
      useFactory: (c: ReadConsistency, e: ExecutionsReadModel, config: Config) => new ConversationHistory(c, e, config.historyMaxTurns),
    },
    {
      provide: InFlightExecutions,
      inject: [Projector, ExecutionsReadModel],
      useFactory: (p: Projector, e: ExecutionsReadModel) => new InFlightExecutions(p, e),
    },
    // actions/
    { provide: ActionsReadModel, ...afterProjector((db) => new ActionsReadModel(db)) },
    ListActionsHandler,
    // artifacts/
    { provide: ArtifactsReadModel, ...afterProjector((db) => new ArtifactsReadModel(db)) },
    ListArtifactsHandler,
    // conversations/
    { provide: ConversationsReadModel, ...afterProjector((db) => new ConversationsReadModel(db)) },
    GetConversationHandler,
    // usage/
    { provide: UsageReadModel, ...afterProjector((db) => new UsageReadModel(db)) },
    UsageSummaryHandler,
    TenantTokensHandler,
  ],
  exports: [READ_MODEL_DB, Projector, ReadConsistency, ConversationHistory, InFlightExecutions],
})
export class ReadModelsModule implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(READ_MODEL_FILE) private readonly file: ReadModelFile,
    private readonly projector: Projector,
  ) {}

  onModuleInit(): void {
    this.projector.start();
  }

  /** Before the store closes: the subscription ends, the batch in hand is written or left for the next start. */
  async beforeApplicationShutdown(): Promise<void> {
    await this.projector.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.file.close();
  }
}
