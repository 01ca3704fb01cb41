import { Inject, Logger, Module, OnApplicationShutdown, OnModuleInit, BeforeApplicationShutdown } from '@nestjs/common';
import type Database from 'better-sqlite3';
import { CONFIG, Config } from '../../config/config';
import { EVENT_STORE, EventStore } from '../../event-store/event-store';
import { EventStoreGateway, inFlightOf } from '../../event-store/event-store-gateway';
import { WEBHOOK_STREAM_PREFIX } from '../../webhooks/domain/webhook-events';
import { Projector } from '../projector';
import { ReadConsistency } from '../read-consistency';
import type { WriteWatermark } from '../write-watermark';
import { ReadModelFile, openReadModelFile, writtenBy } from '../read-model-file';
import { WebhookWriteWatermark } from './webhook-write-watermark';
import { CountWebhooksHandler, GetWebhookHandler, ListDeliveriesHandler, ListWebhooksHandler } from './webhooks.handlers';
import { WebhooksReadModel } from './webhooks.read-model';

const WEBHOOKS_FILE = Symbol('WEBHOOKS_FILE');
const WEBHOOKS_DB = Symbol('WEBHOOKS_DB');
const WEBHOOKS_PROJECTOR = Symbol('WEBHOOKS_PROJECTOR');

/** Beside the read-model file: `data/read-models.db` → `data/read-models.webhooks.db`. */
export const webhooksReadModelPath = (readModelPath: string) => `${readModelPath.replace(/\.(db|sqlite3?)$/, '')}.webhooks.db`;

/**
 * The webhooks read model (docs/webhooks.md#the-delivery-log) in a disposable file of its own, fed
 * by a projector of its own that follows only the webhook streams: the executions read models,
 * their checkpoints and the CLI that rebuilds them stay as they are. Deleting the file rebuilds it
 * at the next start; nothing is re-sent, as what is delivered next is decided by the log.
 */
@Module({
  providers: [
    {
      provide: WEBHOOKS_FILE,
      inject: [CONFIG, EVENT_STORE],
      useFactory: async (config: Config) => {
        const path = webhooksReadModelPath(config.readModelPath);
        const file = await openReadModelFile(path, 'webhooks', config.readModelWriter);
        new Logger('ReadModels').log(`webhooks read model at ${path} (${writtenBy(config.readModelWriter)})`);
        return file;
      },
    },
    { provide: WEBHOOKS_DB, inject: [WEBHOOKS_FILE], useFactory: (file: ReadModelFile) => file.db },
    {
      provide: WEBHOOKS_PROJECTOR,
      inject: [EVENT_STORE, WEBHOOKS_FILE],
      useFactory: (store: EventStore, file: ReadModelFile) => new Projector(store, file.writer, [WEBHOOK_STREAM_PREFIX]),
    },
    {
      provide: ReadConsistency,
      inject: [WEBHOOKS_PROJECTOR, EVENT_STORE],
      useFactory: (projector: Projector, store: EventStore) => {
        const watermark = new WebhookWriteWatermark();
        if (store instanceof EventStoreGateway) store.observe(watermark);
        return new ReadConsistency(projector, watermark as WriteWatermark, inFlightOf(store));
      },
    },
    { provide: WebhooksReadModel, inject: [WEBHOOKS_DB, WEBHOOKS_PROJECTOR], useFactory: (db: Database.Database) => new WebhooksReadModel(db) },
    ListWebhooksHandler,
    GetWebhookHandler,
    CountWebhooksHandler,
    ListDeliveriesHandler,
  ],
})
export class WebhooksReadModelModule implements OnModuleInit, BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    @Inject(WEBHOOKS_FILE) private readonly file: ReadModelFile,
    @Inject(WEBHOOKS_PROJECTOR) private readonly projector: Projector,
  ) {}

  onModuleInit(): void {
    this.projector.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.projector.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.file.close();
  }
}
