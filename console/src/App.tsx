import { useMemo, useState } from 'preact/hooks';
import { ApiContext } from './api';
import { isUnauthenticated } from './errors';
import { ConversationPage } from './pages/ConversationPage';
import { ExecutionPage } from './pages/ExecutionPage';
import { ExecutionsPage } from './pages/ExecutionsPage';
import { FeedPage } from './pages/FeedPage';
import { KeyForm } from './pages/KeyForm';
import { ProvidersPage } from './pages/ProvidersPage';
import { useRoute } from './route';
import { clientFor, storedKey, storeKey } from './session';

export function App() {
  const route = useRoute();
  const [key, setKey] = useState(storedKey);
  const [asking, setAsking] = useState(false);
  const api = useMemo(
    () => ({
      client: clientFor(key),
      failed: (error: unknown) => {
        if (isUnauthenticated(error)) setAsking(true);
      },
    }),
    [key],
  );
  const useKey = (next: string) => {
    storeKey(next);
    setKey(next);
    setAsking(false);
  };
  return (
    <ApiContext.Provider value={api}>
      <header>
        <a class="brand" href="#/executions">
          Runledger
        </a>
        <nav aria-label="Sections">
          <a href="#/executions" aria-current={route.page === 'executions' ? 'page' : undefined}>
            Executions
          </a>
          <a href="#/providers" aria-current={route.page === 'providers' ? 'page' : undefined}>
            Providers
          </a>
          <a href="#/feed" aria-current={route.page === 'feed' ? 'page' : undefined}>
            Audit feed
          </a>
        </nav>
        {key !== null && (
          <button type="button" class="quiet" onClick={() => (storeKey(null), setKey(null))}>
            Forget key
          </button>
        )}
      </header>
      <main>
        {asking ? (
          <KeyForm rejected={key !== null} onKey={useKey} />
        ) : route.page === 'execution' ? (
          <ExecutionPage id={route.id} key={route.id} />
        ) : route.page === 'conversation' ? (
          <ConversationPage id={route.id} />
        ) : route.page === 'providers' ? (
          <ProvidersPage />
        ) : route.page === 'feed' ? (
          <FeedPage />
        ) : (
          <ExecutionsPage />
        )}
      </main>
    </ApiContext.Provider>
  );
}
