import type Database from 'better-sqlite3';
import { EventStore } from '../event-store/event-store';
import { contentHash } from '../read-models/content-hash';
import { Projection } from '../read-models/projection';
import { ProjectionCatalog } from '../read-models/projection-catalog';
import { replayInto } from './replay-into';
import { describeTableDrift } from './table-drift';

export interface ProjectionVerdict {
  name: string;
  checkpoint: number;
  rows: number;
  /** Empty when the live read model equals its rebuild. */
  drift: string[];
}

const REBUILT = 'rebuilt';

/**
 * Rebuilds every projection into `scratch` (an empty database on a temporary file) up to the
 * live checkpoint of each — exactly there, not beyond — and compares content hashes of their
 * tables with the live read model `live`; where they differ, says how.
 */
export async function verifyProjections(
  store: EventStore,
  live: Database.Database,
  scratch: { db: Database.Database; path: string },
  projections: readonly Projection[],
  onProgress: (position: number, end: number) => void = () => {},
): Promise<ProjectionVerdict[]> {
  const catalog = new ProjectionCatalog(live);
  const head = await store.headPosition();
  const versionOf = live.prepare('SELECT version FROM projection_versions WHERE projection = ?').pluck();
  const targets = projections.map((projection) => ({ projection, until: catalog.checkpoint(projection.name) }));
  const end = Math.max(0, ...targets.map((t) => t.until));
  await replayInto(
    store,
    scratch.db,
    targets.map((t) => ({ ...t, until: Math.min(t.until, head) })),
    (position) => onProgress(position, end),
  );
  scratch.db.close();
  live.prepare(`ATTACH DATABASE ? AS ${REBUILT}`).run(scratch.path);
  try {
    return targets.map(({ projection, until }) => {
      const drift: string[] = [];
      const version = versionOf.get(projection.name) as number | undefined;
      if (version !== projection.version) {
        drift.push(`stored version ${version ?? 'none'}, code version ${projection.version}: the server rebuilds it at start`);
      }
      if (until > head) drift.push(`checkpoint ${until} is beyond the event log's head ${head}: this read model belongs to another log`);
      const liveHashes = version === undefined ? [] : contentHash(live, projection);
      const rebuiltHashes = contentHash(live, projection, REBUILT);
      for (const rebuilt of rebuiltHashes) {
        const current = liveHashes.find((h) => h.table === rebuilt.table);
        if (!current || current.hash === rebuilt.hash) continue;
        drift.push(
          `table ${rebuilt.table}: ${current.rows} live rows, ${rebuilt.rows} rebuilt; hash ${current.hash.slice(0, 12)} ≠ ${rebuilt.hash.slice(0, 12)}`,
        );
        drift.push(...describeTableDrift(live, rebuilt.table, REBUILT).map((line) => `  ${line}`));
      }
      const rows = rebuiltHashes.reduce((n, h) => n + h.rows, 0);
      return { name: projection.name, checkpoint: until, rows, drift };
    });
  } finally {
    live.exec(`DETACH DATABASE ${REBUILT}`);
  }
}
