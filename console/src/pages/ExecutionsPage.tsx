import type { Execution, ExecutionSearchQuery } from '@runledger/client';
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api';
import { ErrorLine } from '../errors';
import { hrefOf } from '../route';
import { StatusBadge, Time } from '../widgets';

const STATUSES = ['queued', 'running', 'requires_action', 'completed', 'failed', 'cancelled'] as const;
const PAGE = 20;

/** The tenant's executions from the search read model, newest first, a page at a time. */
export function ExecutionsPage() {
  const { client, failed } = useApi();
  const [filters, setFilters] = useState<ExecutionSearchQuery>({});
  const [rows, setRows] = useState<Execution[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = (cursor?: string) =>
    client.search({ ...filters, limit: PAGE, cursor }).then(
      (page) => {
        setRows((old) => (cursor ? [...old, ...page.executions] : page.executions));
        setNext(page.nextCursor);
        setError(null);
      },
      (e: unknown) => (setError(e), failed(e)),
    );
  useEffect(() => void load(), [client, filters]);
  const set = (name: keyof ExecutionSearchQuery) => (event: Event) => {
    const value = (event.currentTarget as HTMLInputElement).value;
    setFilters((old) => ({ ...old, [name]: value === '' ? undefined : name.startsWith('created') ? new Date(value).toISOString() : value }));
  };
  return (
    <section>
      <h1>Executions</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Search filters">
        <label>
          Status
          <select onChange={set('status')}>
            <option value="">any</option>
            {STATUSES.map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Provider
          <input onChange={set('provider')} placeholder="any" />
        </label>
        <label>
          Conversation
          <input onChange={set('conversationId')} placeholder="any" />
        </label>
        <label>
          Created after
          <input type="datetime-local" onChange={set('createdAfter')} />
        </label>
        <label>
          Created before
          <input type="datetime-local" onChange={set('createdBefore')} />
        </label>
      </form>
      <ErrorLine error={error} />
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th>Execution</th>
              <th>Status</th>
              <th>Provider</th>
              <th>Conversation</th>
              <th>Created</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => (
              <tr>
                <td>
                  <a href={hrefOf.execution(e.id)}>{e.id}</a>
                </td>
                <td>
                  <StatusBadge status={e.status} />
                </td>
                <td>{e.provider}</td>
                <td>
                  <a href={hrefOf.conversation(e.conversationId)}>{e.conversationId.slice(-12)}</a>
                </td>
                <td>
                  <Time iso={e.createdAt} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.length === 0 && error === null && <p>No executions match.</p>}
      {next !== null && (
        <button type="button" onClick={() => void load(next)}>
          Load more
        </button>
      )}
    </section>
  );
}
