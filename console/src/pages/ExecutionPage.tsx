import type { Action, Artifact, Execution, TypedEvent } from '@runledger/client';
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api';
import { ErrorLine } from '../errors';
import { hrefOf } from '../route';
import { StatusBadge, TimelineEvent, Time } from '../widgets';
import { ActionForm } from './ActionForm';

const CHANGES_STATE = new Set(['run.started', 'action.required', 'action.responded', 'artifact.created', 'run.completed', 'run.failed', 'run.cancelled']);

/** One execution, live: its text as it streams, every event, its pending actions and artifacts. */
export function ExecutionPage({ id }: { id: string }) {
  const { client, failed } = useApi();
  const [execution, setExecution] = useState<Execution | null>(null);
  const [actions, setActions] = useState<Action[]>([]);
  const [artifacts, setArtifacts] = useState<Artifact[]>([]);
  const [events, setEvents] = useState<TypedEvent[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [live, setLive] = useState(false);

  const refresh = () =>
    Promise.all([client.execution(id), client.actions(id), client.artifacts(id)]).then(
      ([e, a, r]) => (setExecution(e), setActions(a), setArtifacts(r), setError(null)),
      (e: unknown) => (setError(e), failed(e)),
    );

  useEffect(() => {
    const stop = new AbortController();
    void refresh();
    setLive(true);
    (async () => {
      for await (const event of client.events(id, { signal: stop.signal })) {
        setEvents((old) => [...old, event]);
        if (CHANGES_STATE.has(event.type)) void refresh();
      }
    })().then(
      () => setLive(false),
      (e: unknown) => {
        setLive(false);
        if (stop.signal.aborted) return;
        setError(e);
        failed(e);
      },
    );
    return () => stop.abort();
  }, [client, id]);

  const text = events.flatMap((e) => (e.type === 'output.text.delta' ? [e.data.delta] : [])).join('');
  const pending = actions.filter((a) => a.status === 'pending');
  return (
    <section>
      <h1>
        Execution <code>{id}</code>
      </h1>
      <ErrorLine error={error} />
      {execution && (
        <dl class="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={execution.status} /> {live && <span class="live">live</span>}
          </dd>
          <dt>Provider</dt>
          <dd>{execution.provider}</dd>
          <dt>Conversation</dt>
          <dd>
            <a href={hrefOf.conversation(execution.conversationId)}>{execution.conversationId}</a>
          </dd>
          <dt>Created</dt>
          <dd>
            <Time iso={execution.createdAt} />
          </dd>
          <dt>Started</dt>
          <dd>
            <Time iso={execution.startedAt} />
          </dd>
          <dt>Ended</dt>
          <dd>
            <Time iso={execution.endedAt} />
            {execution.startedAt && execution.endedAt && ` (${((Date.parse(execution.endedAt) - Date.parse(execution.startedAt)) / 1000).toFixed(2)} s)`}
          </dd>
          {execution.error && (
            <>
              <dt>Error</dt>
              <dd class="error">
                {execution.error.code}: {execution.error.message}
              </dd>
            </>
          )}
          {execution.cancellation && (
            <>
              <dt>Cancelled</dt>
              <dd>{execution.cancellation.reason ?? 'no reason given'}</dd>
            </>
          )}
        </dl>
      )}
      <h2>Output</h2>
      <div class="output" aria-live="polite">
        {text || <span class="quiet">no text yet</span>}
      </div>
      {pending.length > 0 && <h2>Waiting for you</h2>}
      {pending.map((action) => (
        <ActionForm action={action} key={action.id} onAnswered={() => void refresh()} />
      ))}
      {execution && !['completed', 'failed', 'cancelled'].includes(execution.status) && <CancelForm id={id} onDone={() => void refresh()} />}
      {artifacts.length > 0 && (
        <>
          <h2>Artifacts</h2>
          <ul>
            {artifacts.map((a) => (
              <li>
                {a.uri ? <a href={a.uri}>{a.name}</a> : a.name} <small>{a.mediaType}</small>
              </li>
            ))}
          </ul>
        </>
      )}
      <h2>Events</h2>
      <ol class="timeline">
        {events.map((event) => (
          <TimelineEvent at={event.sequence} event={event} />
        ))}
      </ol>
    </section>
  );
}

function CancelForm({ id, onDone }: { id: string; onDone: () => void }) {
  const { client, failed } = useApi();
  const [reason, setReason] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="card cancel"
      onSubmit={(event) => {
        event.preventDefault();
        setBusy(true);
        client.cancel(id, reason.trim() ? { reason: reason.trim() } : {}).then(
          () => (setBusy(false), onDone()),
          (e: unknown) => (setBusy(false), setError(e), failed(e)),
        );
      }}
    >
      <label>
        Reason (optional)
        <input maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
      </label>
      <button type="submit" class="danger" disabled={busy}>
        Cancel execution
      </button>
      <ErrorLine error={error} />
    </form>
  );
}
