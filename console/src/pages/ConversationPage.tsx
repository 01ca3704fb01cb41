import { useLoad } from '../api';
import { ErrorLine } from '../errors';
import { hrefOf } from '../route';
import { Json, StatusBadge, Time } from '../widgets';

/** A conversation and its executions, oldest first, as the conversations read model has them. */
export function ConversationPage({ id }: { id: string }) {
  const { value: conversation, error } = useLoad((client) => client.conversation(id), [id]);
  return (
    <section>
      <h1>
        Conversation <code>{id}</code>
      </h1>
      <ErrorLine error={error} />
      {conversation && (
        <>
          <dl class="facts">
            <dt>Title</dt>
            <dd>{conversation.title ?? '—'}</dd>
            <dt>Created</dt>
            <dd>
              <Time iso={conversation.createdAt} />
            </dd>
          </dl>
          {Object.keys(conversation.metadata).length > 0 && <Json value={conversation.metadata} />}
          <h2>Executions</h2>
          <ol>
            {conversation.executions.map((e) => (
              <li>
                <a href={hrefOf.execution(e.id)}>{e.id}</a> <StatusBadge status={e.status} /> {e.provider} <Time iso={e.createdAt} />
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
