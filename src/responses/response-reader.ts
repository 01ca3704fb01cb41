import { Inject, Injectable } from '@nestjs/common';
import { NotFoundError } from '../common/errors/request-errors';
import { EVENT_STORE, EventStore } from '../event-store/event-store';
import { executionStream, toRecorded } from '../executions/execution-stream';
import { ResponseFold } from './domain/response-fold';
import { parseResponseId, ResponseRef } from './domain/response-id';
import type { StreamEvent } from './domain/response-types';

/** One response read from its execution's log: the fold after every stored event. */
export interface LoadedResponse {
  ref: ResponseRef;
  fold: ResponseFold;
  /** Every execution event, as recorded. */
  events: ReturnType<typeof toRecorded>[];
}

/**
 * Reads responses from the log (docs/responses-api.md#ids): the execution's stream, folded; never a
 * store of its own. Another tenant's response answers like one that does not exist.
 */
@Injectable()
export class ResponseReader {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  /** The response, or NOT_FOUND (with `param` when the id came from a body field). */
  load(tenantId: string, id: string, param: string | null = null): Promise<LoadedResponse> {
    return this.fold(tenantId, id, param, false);
  }

  /**
   * The response as it stood when it was created (a background create answers this): the fold up
   * to the event that made it, whatever the run has done since — on a fast store it may already
   * have started by the time the log is read.
   */
  loadAsCreated(tenantId: string, id: string): Promise<LoadedResponse> {
    return this.fold(tenantId, id, null, true);
  }

  private async fold(tenantId: string, id: string, param: string | null, asCreated: boolean): Promise<LoadedResponse> {
    const missing = () => new NotFoundError(`response ${id} not found`, param ? { param } : undefined);
    const ref = parseResponseId(id);
    if (!ref) throw missing();
    const stored = await this.store.readStream(executionStream(ref.executionId));
    if (stored.length === 0 || stored[0].metadata.tenantId !== tenantId) throw missing();
    const fold = new ResponseFold(ref.executionId, ref.turn);
    const events = stored.map(toRecorded);
    for (const event of events) {
      fold.apply(event);
      if (asCreated && fold.current) break;
    }
    if (!fold.current) throw missing();
    return { ref, fold, events };
  }

  /**
   * The response's stream events from its start through its end: the stored ones, then live ones
   * from a catch-up subscription, so the hand-over neither skips nor repeats (docs/responses-api.md#streaming).
   * The caller has checked the response exists and is the tenant's.
   */
  async *follow(ref: ResponseRef, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    const fold = new ResponseFold(ref.executionId, ref.turn);
    for await (const stored of this.store.subscribeToStream(executionStream(ref.executionId), { signal })) {
      yield* fold.apply(toRecorded(stored));
      if (fold.ended) return;
    }
  }

  /** Waits until the response has ended (or `signal` aborts) and answers it as it is then. */
  async settle(tenantId: string, id: string, signal: AbortSignal): Promise<LoadedResponse> {
    const loaded = await this.load(tenantId, id);
    if (loaded.fold.ended) return loaded;
    try {
      for await (const event of this.follow(loaded.ref, signal)) if (isEnd(event)) break;
    } catch (error) {
      // The client went away: the execution goes on, and there is nobody to answer.
      if (!signal.aborted) throw error;
    }
    return this.load(tenantId, id);
  }
}

const END_TYPES = new Set(['response.completed', 'response.failed', 'response.cancelled', 'response.incomplete']);
export const isEnd = (event: StreamEvent) => END_TYPES.has(event.type);
