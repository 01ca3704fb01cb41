import type { FeedEvent } from '@runledger/client';
import { useEffect, useState } from 'preact/hooks';
import { useApi } from '../api';
import { ErrorLine } from '../errors';
import { hrefOf } from '../route';
import { TimelineEvent } from '../widgets';

/** The newest events shown at most. */
const KEEP = 500;

/** The audit feed from where the log stands now, following live; newest first. */
export function FeedPage() {
  const { client, failed } = useApi();
  const [events, setEvents] = useState<FeedEvent[]>([]);
  const [from, setFrom] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    const stop = new AbortController();
    (async () => {
      // Where the log stands: the read models' progress (at most their lag behind the end), so
      // the feed starts at now without paging through the whole history.
      const runtime = await client.runtime({ signal: stop.signal });
      const head = Math.max(0, ...runtime.projections.map((p) => p.position));
      setFrom(head);
      for await (const event of client.feed({ after: head, signal: stop.signal })) setEvents((old) => [event, ...old].slice(0, KEEP));
    })().catch((e: unknown) => !stop.signal.aborted && (setError(e), failed(e)));
    return () => stop.abort();
  }, [client]);
  return (
    <section>
      <h1>Audit feed</h1>
      <ErrorLine error={error} />
      <p class="quiet">{from === null ? 'Finding the end of the log…' : `Following live from position ${from}.`}</p>
      <ol class="timeline">
        {events.map((event) => (
          <TimelineEvent at={event.position} event={event}>
            {event.executionId ? (
              <a href={hrefOf.execution(event.executionId)}>{event.executionId.slice(-12)}</a>
            ) : (
              <a href={hrefOf.conversation(event.conversationId!)}>{event.conversationId!.slice(-12)}</a>
            )}
          </TimelineEvent>
        ))}
      </ol>
    </section>
  );
}
