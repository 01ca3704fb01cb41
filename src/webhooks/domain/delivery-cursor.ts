import {
  DeliveryAttemptedData,
  LeaseTakenData,
  ReplayRequestedData,
  WEBHOOK_DELETED,
  WEBHOOK_DELIVERY_ATTEMPTED,
  WEBHOOK_DISABLED,
  WEBHOOK_LEASE_TAKEN,
  WEBHOOK_REPLAY_REQUESTED,
  WEBHOOK_CREATED,
  WEBHOOK_SECRET_ROTATED,
  WebhookCreatedData,
  SecretRotatedData,
} from './webhook-events';

/** The previous secret keeps signing this long after a rotation (docs/webhooks.md#signatures). */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

export interface LiveSecret {
  secret: string;
  /** ISO time it stops signing; null for the current one. */
  expiresAt: string | null;
}

/** What the endpoint is: where to send and what. */
export interface EndpointTarget {
  url: string;
  events: string[];
}

/** The secrets that sign at `now`, the current one first. */
export const liveSecrets = (secrets: readonly LiveSecret[], now: number): string[] =>
  secrets.filter((s) => s.expiresAt === null || Date.parse(s.expiresAt) > now).map((s) => s.secret);

/** Applies a rotation (idempotent: a rotation read twice changes nothing the second time). */
export function rotate(secrets: LiveSecret[], data: SecretRotatedData): LiveSecret[] {
  if (secrets.some((s) => s.secret === data.secret)) return secrets;
  const expiresAt = new Date(Date.parse(data.rotatedAt) + ROTATION_OVERLAP_MS).toISOString();
  return [{ secret: data.secret, expiresAt: null }, ...secrets.filter((s) => s.expiresAt === null).map((s) => ({ secret: s.secret, expiresAt }))];
}

/** A delivery that has been tried but is not settled: where its next attempt resumes. */
export interface PendingAttempt {
  attempts: number;
  nextAttemptAt: string | null;
}

/**
 * Where an endpoint's delivery stands, folded from its own stream (docs/webhooks.md#the-checkpoint):
 * the checkpoint the last outcome recorded, the events above it already settled, and the
 * retries in progress. A deliverer follows the log from `checkpoint` and skips `settled`.
 */
export interface DeliveryCursor {
  checkpoint: number;
  settled: Set<number>;
  pending: Map<number, PendingAttempt>;
  /** The last replay request the deliverer applied: reading it again does not replay twice. */
  lastReplay: number;
  /** Replays requested but not yet applied by a deliverer (no outcome names them yet). */
  unapplied: { at: number; after: number }[];
  leaseHolder: string | null;
  /** The position of the lease event folded last: older ones read again say nothing. */
  leaseAt: number;
  ended: boolean;
  target: EndpointTarget | null;
  secrets: LiveSecret[];
  /** The stream's last revision folded, or null for none. */
  revision: number | null;
}

export const emptyCursor = (): DeliveryCursor => ({
  checkpoint: 0,
  settled: new Set(),
  pending: new Map(),
  lastReplay: 0,
  unapplied: [],
  leaseHolder: null,
  leaseAt: 0,
  ended: false,
  target: null,
  secrets: [],
  revision: null,
});

export interface CursorEvent {
  type: string;
  data: Record<string, unknown>;
  position: number;
  revision: number;
}

/** Folds one event of the endpoint's stream into the cursor (mutating it: streams are long). */
export function foldCursor(cursor: DeliveryCursor, event: CursorEvent): DeliveryCursor {
  cursor.revision = event.revision;
  switch (event.type) {
    case WEBHOOK_CREATED: {
      const data = event.data as unknown as WebhookCreatedData;
      cursor.target = { url: data.url, events: data.events };
      cursor.secrets = [{ secret: data.secret, expiresAt: null }];
      // An endpoint is told of what happens after it was created, not of the log before.
      cursor.checkpoint = event.position;
      break;
    }
    case WEBHOOK_SECRET_ROTATED:
      cursor.secrets = rotate(cursor.secrets, event.data as unknown as SecretRotatedData);
      break;
    case WEBHOOK_DELIVERY_ATTEMPTED: {
      const data = event.data as unknown as DeliveryAttemptedData;
      // The first outcome written after the deliverer applied a replay: it re-sends from there.
      for (const replay of cursor.unapplied.filter((r) => r.at <= data.replay)) rewind(cursor, replay.after, replay.at);
      cursor.unapplied = cursor.unapplied.filter((r) => r.at > data.replay);
      cursor.checkpoint = data.checkpoint;
      if (data.outcome === 'retrying') cursor.pending.set(data.position, { attempts: data.attempt, nextAttemptAt: data.nextAttemptAt });
      else {
        cursor.pending.delete(data.position);
        cursor.settled.add(data.position);
      }
      break;
    }
    case WEBHOOK_REPLAY_REQUESTED:
      cursor.unapplied.push({ at: event.position, after: (event.data as unknown as ReplayRequestedData).after });
      break;
    case WEBHOOK_LEASE_TAKEN:
      cursor.leaseHolder = (event.data as unknown as LeaseTakenData).instanceId;
      cursor.leaseAt = event.position;
      break;
    case WEBHOOK_DELETED:
    case WEBHOOK_DISABLED:
      cursor.ended = true;
      break;
  }
  return cursor;
}

/**
 * Where a deliverer starts: replays not yet applied are applied now (the deliverer will read
 * their requests again and skip them), and what is settled at or below the checkpoint is dropped.
 */
export function startingPoint(cursor: DeliveryCursor): DeliveryCursor {
  for (const replay of cursor.unapplied) rewind(cursor, replay.after, replay.at);
  cursor.unapplied = [];
  for (const position of cursor.settled) if (position <= cursor.checkpoint) cursor.settled.delete(position);
  return cursor;
}

/**
 * A replay rewinds the cursor to `after`: what was settled above it is sent again; retries in
 * progress keep their place.
 */
export function rewind(cursor: DeliveryCursor, after: number, at: number): void {
  cursor.lastReplay = Math.max(cursor.lastReplay, at);
  cursor.checkpoint = Math.min(cursor.checkpoint, after);
  for (const position of cursor.settled) if (position > after) cursor.settled.delete(position);
}
