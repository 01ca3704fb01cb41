import { RunledgerError } from '@runledger/client';

/** An error from the API as a line a person can act on; UNAUTHENTICATED is handled by the key form instead. */
export function ErrorLine({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const text = error instanceof RunledgerError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : JSON.stringify(error);
  return (
    <p class="error" role="alert">
      {text}
    </p>
  );
}

export const isUnauthenticated = (error: unknown) => error instanceof RunledgerError && error.code === 'UNAUTHENTICATED';
