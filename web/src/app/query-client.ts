import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import { SESSION_KEY } from '../features/auth/session';

/**
 * A 401 anywhere means the session ended (expired, signed out elsewhere, user removed): asking for the session
 * again lets the layout send the user to sign-in, keeping the page they were on.
 */
function onError(err: unknown): void {
  if (err instanceof ApiError && err.status === 401) void queryClient.invalidateQueries({ queryKey: SESSION_KEY });
}

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: (err, query) => { if (query.queryKey[0] !== SESSION_KEY[0]) onError(err); } }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A 4xx will not change by asking again.
      retry: (n, err) => !(err instanceof ApiError && err.status < 500) && n < 2,
    },
  },
});
