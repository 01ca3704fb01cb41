import { RunledgerClient } from '@runledger/client';

const KEY = 'runledger.apiKey';

/** The API key lives in session storage: entered once per tab, gone when the tab closes. */
export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const storeKey = (key: string | null): void => (key === null ? sessionStorage.removeItem(KEY) : sessionStorage.setItem(KEY, key));

/** A client of the server that served the page, with the stored key when there is one. */
export const clientFor = (key: string | null): RunledgerClient => new RunledgerClient({ baseUrl: location.origin, apiKey: key ?? undefined });
