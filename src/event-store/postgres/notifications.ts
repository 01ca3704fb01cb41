import { Client, ClientConfig, Notification, Pool } from 'pg';
import type { RecentEvents } from '../recent-events';
import { EVENTS_TABLE } from './schema';
import { frontierSql } from './position';
import { EVENT_COLUMNS, EventRowOut, toStored } from './reads';
import { ALL_STREAMS, WakeHub, sleep } from '../wake-hub';

/** One channel for every instance on the database; notifications carry no payload. */
export const CHANNEL = 'runledger_events';
/** At most one NOTIFY per this many ms per instance. */
export const NOTIFY_INTERVAL_MS = 3;
/** Events one scan hands to stream followers; past it they are only woken, and read for themselves. */
const SCAN_EVENTS = 2_000;
const FIRST_RETRY_MS = 100;
/**
 * A scan: the frontier, and the followed streams' events at or above the previous one. The streams
 * are matched through an expression (`stream_id || ''`) that no index and no statistics cover: the
 * plan can then only walk the few newest positions, and planning skips estimating each of the
 * dozens of stream ids against the column's statistics, which cost PostgreSQL twice what running
 * the scan did (bench:instances --statements). Matched on the column itself, a generic plan read
 * the streams whole by (stream_id, revision), 2.5 times slower, and slower as streams grow.
 */
export const SCAN = {
  name: 'runledger_scan',
  text: `SELECT f.frontier, e.* FROM (SELECT ${frontierSql('$1')} AS frontier) f LEFT JOIN LATERAL (
   SELECT ${EVENT_COLUMNS} FROM ${EVENTS_TABLE} WHERE position >= $2 AND (stream_id || '') = ANY($3::text[])
   ORDER BY position LIMIT ${SCAN_EVENTS}) e ON true`,
};
const MAX_RETRY_MS = 5_000;

/**
 * Wake-ups across instances through LISTEN/NOTIFY, as a hint only.
 *
 * After a commit this instance wakes its own readers at once and asks for a NOTIFY, sent from the
 * listening connection — never inside the append transaction, where it would serialise commits —
 * and at most every NOTIFY_INTERVAL_MS, however many commits happened meanwhile. A notification
 * from another instance wakes every $all reader here; stream readers are woken by one shared scan
 * of what was committed since the previous scan (see `scan`), which also reads those events for
 * them: one query per notification instead of one per stream follower.
 * After (re)connecting the listener everyone is woken, since notifications may have been missed.
 */
export class PgNotifications {
  private listener: Client | undefined;
  private closed = false;
  private readonly stopListening = new AbortController();
  private loop: Promise<void> | undefined;
  private notifyWanted = false;
  private notifying = false;
  private notifyTimer: NodeJS.Timeout | undefined;
  private lastNotify = 0;
  /** Every event committed since the last scan sits at or above this position; undefined: unknown. */
  private scanFrom: number | undefined;
  private scanning = false;
  private scanAgain = false;

  constructor(
    private readonly config: ClientConfig,
    private readonly pool: Pool,
    private readonly hub: WakeHub,
    private readonly xidBase: bigint,
    private readonly scanned: RecentEvents,
  ) {}

  /** Starts listening; resolves once the first LISTEN is in place (or failed, then retried in the background). */
  start(): Promise<void> {
    let started!: () => void;
    const first = new Promise<void>((resolve) => (started = resolve));
    this.loop = this.listen(started);
    return first;
  }

  /** This instance committed events to `streams`. */
  committed(streams: Iterable<string>): void {
    this.hub.wake([...streams, ALL_STREAMS]);
    this.requestNotify();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopListening.abort();
    clearTimeout(this.notifyTimer);
    await this.listener?.end().catch(() => undefined);
    await this.loop;
  }

  private async listen(started: () => void): Promise<void> {
    let retryMs = FIRST_RETRY_MS;
    while (!this.closed) {
      const client = new Client(this.config);
      const ended = new Promise<void>((resolve) => {
        client.on('error', () => resolve());
        client.on('end', () => resolve());
      });
      try {
        await client.connect();
        client.on('notification', (message: Notification) => {
          if (message.processId !== (client as unknown as { processID: number }).processID) this.remote();
        });
        await client.query(`LISTEN ${CHANNEL}`);
        this.listener = client;
        retryMs = FIRST_RETRY_MS;
        // Notifications sent while nobody listened are lost: everyone re-reads once.
        this.scanFrom = undefined;
        this.hub.wakeEveryone();
        started();
        await ended;
      } catch {
        // Refused or dropped: try again below.
      } finally {
        if (this.listener === client) this.listener = undefined;
        await client.end().catch(() => undefined);
      }
      started();
      if (this.closed) return;
      await sleep(retryMs, this.stopListening.signal);
      retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
    }
  }

  private requestNotify(): void {
    this.notifyWanted = true;
    if (this.notifying || this.notifyTimer || this.closed) return;
    const delay = Math.max(0, this.lastNotify + NOTIFY_INTERVAL_MS - performance.now());
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      void this.notify();
    }, delay);
  }

  private async notify(): Promise<void> {
    if (this.closed) return;
    this.notifyWanted = false;
    this.notifying = true;
    this.lastNotify = performance.now();
    try {
      await (this.listener ?? this.pool).query(`NOTIFY ${CHANNEL}`);
    } catch {
      // Others would miss this commit's wake-up: ask again once the connection may be back.
      this.notifyWanted = true;
      this.lastNotify += FIRST_RETRY_MS;
    } finally {
      this.notifying = false;
    }
    if (this.notifyWanted) this.requestNotify();
  }

  /** Another instance committed something. */
  private remote(): void {
    this.hub.wake([ALL_STREAMS]);
    if (this.scanning) {
      this.scanAgain = true;
      return;
    }
    void this.scan();
  }

  /**
   * Wakes the stream readers whose streams got events since the last scan: everything committed
   * since then sits at or above the previous scan's frontier (its transaction was in flight or had
   * not started), so reading the visible events at or above it, and moving it to this scan's
   * frontier, misses none. Visible events above the frontier are read again next time: a second
   * wake-up, never a missed one.
   */
  private async scan(): Promise<void> {
    this.scanning = true;
    try {
      do {
        this.scanAgain = false;
        const streams = this.hub.followedStreams();
        if (streams.length === 0) {
          // Nobody to wake; whoever waits later reads first, and the next scan starts afresh.
          this.scanFrom = undefined;
          continue;
        }
        if (this.scanFrom === undefined) {
          // Nothing known since when: take a frontier first, then let every stream reader re-read.
          const { rows } = await this.pool.query<{ frontier: string }>(`SELECT ${frontierSql('$1')} AS frontier`, [this.xidBase.toString()]);
          this.scanFrom = Number(rows[0].frontier);
          this.hub.wake(streams);
          continue;
        }
        const { rows } = await this.pool.query<{ frontier: string } & Partial<EventRowOut>>({
          ...SCAN,
          values: [this.xidBase.toString(), this.scanFrom, streams],
        });
        this.scanFrom = Number(rows[0].frontier);
        const events = rows.filter((row): row is EventRowOut & { frontier: string } => row.position != null).map(toStored);
        if (events.length < SCAN_EVENTS) {
          this.scanned.recordRead(events);
          this.hub.wake(new Set(events.map((event) => event.streamId)));
        } else {
          // More than one scan hands over: every follower reads for itself.
          this.hub.wake(streams);
        }
      } while (this.scanAgain && !this.closed);
    } catch {
      // Unknown what was missed: the next scan wakes every stream reader.
      this.scanFrom = undefined;
    } finally {
      this.scanning = false;
    }
  }
}
