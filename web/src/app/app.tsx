import { QueryClientProvider } from '@tanstack/react-query';
import { RouterProvider } from 'react-router';
import { sessionQuery } from '../features/auth/session';
import { queryClient } from './query-client';
import { router } from './router';

// Asked for at once, while the page's code is still loading, rather than after the layout first renders.
void queryClient.prefetchQuery(sessionQuery);

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  );
}
