import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, type ReactNode } from 'react';
import { fetchSession, type SessionView } from './auth-api';

export const SESSION_KEY = ['session'] as const;

/** The signed-in session; only rendered below the guard in the layout, so it is never null there. */
const SessionContext = createContext<SessionView | null>(null);

export const sessionQuery = { queryKey: SESSION_KEY, queryFn: fetchSession, staleTime: 60_000, retry: false } as const;

export function useSessionQuery() {
  return useQuery(sessionQuery);
}

export function SessionProvider({ session, children }: { session: SessionView; children: ReactNode }) {
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionView {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside a signed-in layout');
  return s;
}

/** Whether the session may do what `scope` allows; the UI hides what the API would refuse. */
export function useCan(scope: string): boolean {
  return useSession().scopes.includes(scope);
}

/** After sign-in, sign-out or setup: the cache holds nothing from the previous session. */
export function useReplaceSession() {
  const qc = useQueryClient();
  return (s: SessionView | null) => {
    qc.clear();
    qc.setQueryData(SESSION_KEY, s);
  };
}
