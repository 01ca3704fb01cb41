import { useEffect, useState } from 'preact/hooks';

export type Route =
  { page: 'executions' } | { page: 'execution'; id: string } | { page: 'conversation'; id: string } | { page: 'providers' } | { page: 'feed' };

/** Routes live in the hash (`#/executions/<id>`), so the server serves one page for all of them. */
export function parseRoute(hash: string): Route {
  const [, page, id] = hash.replace(/^#/, '').split('/');
  if (page === 'executions' && id) return { page: 'execution', id: decodeURIComponent(id) };
  if (page === 'conversations' && id) return { page: 'conversation', id: decodeURIComponent(id) };
  if (page === 'providers') return { page: 'providers' };
  if (page === 'feed') return { page: 'feed' };
  return { page: 'executions' };
}

export const hrefOf = {
  execution: (id: string) => `#/executions/${encodeURIComponent(id)}`,
  conversation: (id: string) => `#/conversations/${encodeURIComponent(id)}`,
};

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
