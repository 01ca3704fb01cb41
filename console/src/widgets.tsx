import type { ComponentChildren } from 'preact';

/** Small pieces every page shows the same way. */
export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge ${status}`}>{status.replace('_', ' ')}</span>;
}

export function Time({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span>—</span>;
  return <time dateTime={iso}>{new Date(iso).toLocaleString()}</time>;
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

/** One event of a timeline: its cursor, type and time, with whatever else `children` adds, expanding to its JSON. */
export function TimelineEvent({ at, event, children }: { at: number; event: { type: string; occurredAt: string }; children?: ComponentChildren }) {
  return (
    <li>
      <details>
        <summary>
          <span class="seq">{at}</span> <code>{event.type}</code> {children} <Time iso={event.occurredAt} />
        </summary>
        <Json value={event} />
      </details>
    </li>
  );
}
