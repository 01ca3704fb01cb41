import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { CONFIG, Config } from '../config/config';
import { EVENT_STORE, EventStore } from './event-store';
import { EventStoreDbEventStore } from './eventstoredb/eventstoredb-event-store';
import { EventStoreGateway } from './event-store-gateway';
import { PostgresEventStore } from './postgres/postgres-event-store';
import { SqliteEventStore } from './sqlite/sqlite-event-store';
import { StoreHealth } from './store-health';

async function openEventStore(config: Config, health: StoreHealth): Promise<EventStore> {
  const store = new EventStoreGateway(await openAdapter(config));
  store.observe(health);
  return store;
}

/** The database URL without its password, for the log. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'DATABASE_URL';
  }
}

async function openAdapter(config: Config): Promise<EventStore> {
  const logger = new Logger('EventStore');
  if (config.eventStore === 'postgres') {
    const store = await PostgresEventStore.connect(config.databaseUrl!, { writer: config.postgresWriter });
    logger.log(
      `using PostgreSQL at ${redactedUrl(config.databaseUrl!)} (${config.postgresWriter === 'thread' ? 'appends on a writer thread' : 'appends on the event loop'})`,
    );
    return store;
  }
  if (config.eventStore === 'eventstoredb') {
    const store = await EventStoreDbEventStore.connect(config.eventStoreDbConnectionString!);
    logger.log('using EventStoreDB');
    return store;
  }
  const store = SqliteEventStore.open(config.sqlitePath, { writer: config.sqliteWriter });
  logger.log(`using SQLite at ${config.sqlitePath} (${config.sqliteWriter === 'thread' ? 'writes on a writer thread' : 'writes on the event loop'})`);
  return store;
}

/** Provides the configured adapter behind the EVENT_STORE port and closes it last on shutdown. */
@Global()
@Module({
  providers: [StoreHealth, { provide: EVENT_STORE, inject: [CONFIG, StoreHealth], useFactory: openEventStore }],
  exports: [EVENT_STORE, StoreHealth],
})
export class EventStoreModule implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
