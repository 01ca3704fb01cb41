import type { Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { spawnWorker } from '../spawn-worker';
import { RateLimitedError } from '../errors/request-errors';
import { SCHEMA_LIMITS } from './schema-limits';
import type { SchemaRequest, SchemaResponse } from './schema-messages';

const TOO_SLOW = `could not be checked within ${SCHEMA_LIMITS.checkTimeoutMs} ms`;

/** A request before the checker numbers it (Omit over each member of the union). */
type Unnumbered<T> = T extends unknown ? Omit<T, 'id'> : never;

type Pending = { request: SchemaRequest; key: string; resolve: (problem: string | null) => void; reject: (error: Error) => void };

/**
 * Compiling a client's schema takes time in proportion to its size (hundreds of milliseconds for
 * tens of kilobytes) and validating a value can too, so both run on a worker thread: the event
 * loop only posts and waits. One check at a time runs there, each with a deadline; a check past
 * it ends the worker (the only way to stop synchronous JavaScript), answers a problem, and the
 * checks behind it go to a new worker.
 */
class SchemaChecker {
  private worker: Worker | null = null;
  /** A new worker loads its code first; no deadline runs until it has. */
  private ready = false;
  private readonly queue: Pending[] = [];
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;
  /**
   * Schemas whose own check (meta-schema, compile) ran past the deadline: that is the schema's
   * doing whatever the value, so the same schema is refused at once next time and cannot be sent
   * again and again to keep the worker from everyone else. A slow value is not remembered: that
   * would let one tenant's answers refuse another tenant's schema.
   */
  private readonly tooSlow = new LRUCache<string, true>({ max: 10_000 });

  check(request: Unnumbered<SchemaRequest>): Promise<string | null> {
    const key = request.op === 'schema' ? (JSON.stringify(request.schema) ?? '') : '';
    if (key && this.tooSlow.has(key)) return Promise.resolve(`${TOO_SLOW}; it did before`);
    if (this.queue.length >= SCHEMA_LIMITS.maxQueuedChecks) {
      return Promise.reject(new RateLimitedError('too many JSON Schema checks are waiting; retry shortly'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ request: { ...request, id: this.nextId++ } as SchemaRequest, key, resolve, reject });
      if (this.queue.length === 1) this.sendHead();
    });
  }

  /** Ends the worker; the next check starts a new one. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker || this.queue.length > 0) return;
    this.worker = null;
    this.ready = false;
    worker.removeAllListeners();
    await worker.terminate();
  }

  private sendHead(): void {
    const head = this.queue[0];
    if (!head) return;
    const worker = this.ensureWorker();
    if (!this.ready) return;
    this.timer = setTimeout(() => {
      if (head.key) this.tooSlow.set(head.key, true);
      this.abandonHead(TOO_SLOW);
    }, SCHEMA_LIMITS.checkTimeoutMs);
    this.timer.unref();
    try {
      worker.postMessage(head.request);
    } catch (error) {
      // A value that cannot be cloned (it never can from JSON) is refused, not thrown.
      this.settleHead(`could not be checked: ${(error as Error).message}`);
    }
  }

  private settleHead(problem: string | null): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const head = this.queue.shift();
    head?.resolve(problem);
    this.sendHead();
  }

  private abandonHead(problem: string): void {
    const worker = this.worker;
    this.worker = null;
    this.ready = false;
    worker?.removeAllListeners();
    void worker?.terminate();
    this.settleHead(problem);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = spawnSchemaWorker();
    worker.unref();
    worker.on('message', (response: SchemaResponse | 'ready') => {
      if (response === 'ready') {
        this.ready = true;
        this.sendHead();
        return;
      }
      if (this.queue[0]?.request.id === response.id) this.settleHead(response.problem);
    });
    worker.on('error', (error) => {
      if (!this.ready) {
        // A worker that cannot even load is a broken installation, not a bad schema: fail
        // loudly instead of starting one worker after another.
        this.worker = null;
        worker.removeAllListeners();
        for (const pending of this.queue.splice(0)) pending.reject(new Error(`the schema worker did not start: ${error.message}`));
        return;
      }
      // Out of memory (its heap is capped) or any crash: the check it ran is refused, the rest go on.
      this.abandonHead('could not be checked: the schema worker failed on it');
    });
    worker.on('exit', () => {
      if (this.worker === worker) this.abandonHead('could not be checked: the schema worker stopped');
    });
    this.worker = worker;
    return worker;
  }
}

/** The compiled worker beside this file, or (under ts-jest and ts-node) its TypeScript source. */
function spawnSchemaWorker(): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: 256 };
  return spawnWorker(__dirname, 'schema-worker', { resourceLimits });
}

const checker = new SchemaChecker();

/** Null when `schema` is a valid JSON Schema 2020-12 within the bounds of SCHEMA_LIMITS, else why not. */
export const schemaProblem = (schema: unknown): Promise<string | null> => checker.check({ op: 'schema', schema });

/** Null when `value` satisfies `schema`, else a message in the VALIDATION_ERROR style. */
export const valueProblem = (schema: object, value: unknown, root = 'value'): Promise<string | null> => checker.check({ op: 'value', schema, value, root });

/** Ends the schema worker when an app shuts down (a test process starts and stops many apps). */
export const closeSchemaChecker = (): Promise<void> => checker.close();
