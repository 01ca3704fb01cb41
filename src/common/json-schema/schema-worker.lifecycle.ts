import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { closeSchemaChecker } from './schema-checker';

/** The schema worker lives as long as the app: an unref'd worker still held jest's process open. */
@Injectable()
export class SchemaWorkerLifecycle implements OnApplicationShutdown {
  onApplicationShutdown(): Promise<void> {
    return closeSchemaChecker();
  }
}
