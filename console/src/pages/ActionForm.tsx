import type { Action } from '@runledger/client';
import { useState } from 'preact/hooks';
import { useApi } from '../api';
import { ErrorLine } from '../errors';
import { Field, Schema, fieldsOf, problems } from '../schema-form';

/** Answers one pending action: approve or deny it, or give its input, checked before it is sent. */
export function ActionForm({ action, onAnswered }: { action: Action; onAnswered: () => void }) {
  const { client, failed } = useApi();
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const send = async (answer: Parameters<typeof client.respond>[2]) => {
    setBusy(true);
    try {
      await client.respond(action.executionId, action.id, answer);
      setError(null);
      onAnswered();
    } catch (e) {
      setError(e);
      failed(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="card action" aria-label={`Action: ${action.prompt}`}>
      <h3>{action.prompt}</h3>
      {action.tool && (
        <p>
          Tool call <code>{action.tool.name}</code> with <code>{JSON.stringify(action.tool.arguments)}</code>
        </p>
      )}
      {action.kind === 'approval' ? (
        <ApprovalForm busy={busy} send={send} />
      ) : (
        <InputForm schema={action.inputSchema as Schema | null} busy={busy} send={send} />
      )}
      <ErrorLine error={error} />
    </article>
  );
}

type Send = (answer: { decision: 'approve' | 'deny'; comment?: string } | { value: never }) => Promise<void>;

function ApprovalForm({ busy, send }: { busy: boolean; send: Send }) {
  const [comment, setComment] = useState('');
  const decide = (decision: 'approve' | 'deny') => void send({ decision, ...(comment.trim() ? { comment: comment.trim() } : {}) });
  return (
    <form onSubmit={(e) => e.preventDefault()}>
      <label>
        Comment (optional)
        <textarea maxLength={2000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
      </label>
      <div class="buttons">
        <button type="button" disabled={busy} onClick={() => decide('approve')}>
          Approve
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => decide('deny')}>
          Deny
        </button>
      </div>
    </form>
  );
}

function InputForm({ schema, busy, send }: { schema: Schema | null; busy: boolean; send: Send }) {
  const fields = fieldsOf(schema);
  const [values, setValues] = useState<Record<string, string>>({});
  const [json, setJson] = useState('');
  const [invalid, setInvalid] = useState<string[]>([]);
  const submit = (event: Event) => {
    event.preventDefault();
    let value: unknown;
    if (fields === null) {
      try {
        value = JSON.parse(json);
      } catch {
        return setInvalid(['the answer is not JSON']);
      }
    } else value = objectOf(fields, values);
    const found = problems(schema, value);
    setInvalid(found);
    if (found.length === 0) void send({ value: value as never });
  };
  return (
    <form onSubmit={submit} noValidate>
      {fields === null ? (
        <label>
          Answer (JSON{schema ? ` matching ${JSON.stringify(schema)}` : ''})
          <textarea name="json" required value={json} onInput={(e) => setJson(e.currentTarget.value)} />
        </label>
      ) : (
        fields.map((field) => <FieldInput field={field} value={values[field.name] ?? ''} onValue={(v) => setValues((old) => ({ ...old, [field.name]: v }))} />)
      )}
      {invalid.length > 0 && (
        <ul class="error" role="alert">
          {invalid.map((p) => (
            <li>{p}</li>
          ))}
        </ul>
      )}
      <button type="submit" disabled={busy}>
        Send answer
      </button>
    </form>
  );
}

function FieldInput({ field, value, onValue }: { field: Field; value: string; onValue: (value: string) => void }) {
  const label = `${field.name}${field.required ? '' : ' (optional)'}`;
  if (field.options !== null || field.type === 'boolean') {
    const options = field.options ?? [true, false];
    return (
      <label>
        {label}
        <select name={field.name} value={value} onChange={(e) => onValue(e.currentTarget.value)}>
          <option value="">—</option>
          {options.map((o) => (
            <option value={JSON.stringify(o)}>{String(o)}</option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <label>
      {label}
      {field.description && <small>{field.description}</small>}
      <input
        name={field.name}
        type={field.type === 'string' ? 'text' : 'number'}
        step={field.type === 'integer' ? 1 : 'any'}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
      />
    </label>
  );
}

/** The form's strings as the JSON the schema asks for; an empty field is left out. */
function objectOf(fields: Field[], values: Record<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = values[field.name] ?? '';
    if (raw === '') continue;
    out[field.name] = field.options !== null || field.type === 'boolean' ? JSON.parse(raw) : field.type === 'string' ? raw : Number(raw);
  }
  return out;
}
