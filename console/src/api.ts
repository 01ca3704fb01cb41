import type { RunledgerClient } from '@runledger/client';
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { isUnauthenticated } from './errors';

export interface Api {
  client: RunledgerClient;
  /** Called with every error: a refused key sends the person back to the key form. */
  failed: (error: unknown) => void;
}

export const ApiContext = createContext<Api | null>(null);

export const useApi = (): Api => useContext(ApiContext)!;

/** Loads once per change of `deps`; answers the value, the error, and a way to load again. */
export function useLoad<T>(load: (client: RunledgerClient) => Promise<T>, deps: unknown[]): { value: T | undefined; error: unknown; reload: () => void } {
  const api = useApi();
  const [value, setValue] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    load(api.client).then(
      (v) => current && (setValue(v), setError(null)),
      (e: unknown) => current && (setError(e), api.failed(e)),
    );
    return () => {
      current = false;
    };
  }, [api.client, tick, ...deps]);
  return { value, error: isUnauthenticated(error) ? null : error, reload: () => setTick((t) => t + 1) };
}
