import { useState } from 'preact/hooks';

/** Asked for when the server answers 401: the key is kept for this tab only (session storage). */
export function KeyForm({ rejected, onKey }: { rejected: boolean; onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <form
      class="card narrow"
      onSubmit={(event) => {
        event.preventDefault();
        if (key.trim() !== '') onKey(key.trim());
      }}
    >
      <h1>API key</h1>
      <p>{rejected ? 'The server refused that key. Enter another one.' : 'This server needs an API key.'}</p>
      <label>
        Key
        <input type="password" name="apiKey" autoComplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} autoFocus />
      </label>
      <button type="submit">Use this key</button>
    </form>
  );
}
