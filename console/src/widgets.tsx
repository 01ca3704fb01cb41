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
