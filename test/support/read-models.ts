import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { EventStore } from '../../src/event-store/event-store';
import { EventStoreGateway } from '../../src/event-store/event-store-gateway';
import { ConversationHistory } from '../../src/read-models/executions/conversation-history';
import { ExecutionsReadModel } from '../../src/read-models/executions/executions.read-model';
import { InFlightExecutions } from '../../src/read-models/executions/in-flight-executions';
import { ReadConsistency } from '../../src/read-models/read-consistency';
import { openReadModelDatabase } from '../../src/read-models/read-model-database';
import { PROJECTIONS } from '../../src/read-models/projections';
import { Projector } from '../../src/read-models/projector';
import { ReadModelTransaction } from '../../src/read-models/read-model-transaction';
import { WriteWatermark } from '../../src/read-models/write-watermark';

/**
 * The read side wired as the app wires it, for specs that drive the runner without HTTP: the
 * store observed (read-your-writes), a live projector on a real read-model file in `dir`.
 */
export function startReadModels(adapter: EventStore, dir: string, historyMaxTurns = 100) {
  // The projector's and the sweep's expected log lines (rebuilds, refused writes) stay out of the test output.
  Logger.overrideLogger(false);
  const store = new EventStoreGateway(adapter);
  const watermark = new WriteWatermark();
  store.observe(watermark);
  const readModels = openReadModelDatabase(join(dir, 'read-models.db'));
  const { db } = readModels;
  const projector = new Projector(store, new ReadModelTransaction(db, PROJECTIONS));
  projector.start();
  const consistency = new ReadConsistency(projector, watermark, store.inFlight);
  const executions = new ExecutionsReadModel(db);
  return {
    store,
    projector,
    executions,
    inFlight: new InFlightExecutions(projector, executions),
    consistency,
    history: new ConversationHistory(consistency, executions, historyMaxTurns),
    async close() {
      await projector.stop();
      readModels.close();
    },
  };
}
