import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { ErrorDisplay } from '../components/error-display';
import { Loading } from '../components/page';
import { logout } from '../features/auth/auth-api';
import { sessionQuery, SessionProvider, useReplaceSession, useSessionQuery } from '../features/auth/session';
import { LiveUpdates } from '../features/live/live';
import type { SessionView } from '../features/auth/auth-api';

const NAV = [
  { to: '/alerts', label: 'Alerts' },
  { to: '/incidents', label: 'Incidents' },
  { to: '/oncall', label: 'On call' },
  { to: '/escalation-policies', label: 'Escalation' },
  { to: '/integrations', label: 'Integrations' },
  { to: '/heartbeats', label: 'Heartbeats' },
  { to: '/workflows', label: 'Workflows' },
  { to: '/suppression', label: 'Suppression' },
  { to: '/clients', label: 'Clients' },
  { to: '/members', label: 'Members' },
  { to: '/settings/api-keys', label: 'API keys' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/profile', label: 'Your profile' },
];

function Nav({ session }: { session: SessionView }) {
  const replace = useReplaceSession();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const out = useMutation({
    mutationFn: logout,
    onSuccess: () => {
      replace(null);
      navigate('/sign-in', { replace: true });
    },
  });
  return (
    <header className="topbar">
      <a className="skip" href="#main">Skip to content</a>
      <span className="brand">AlertFlow</span>
      <nav aria-label="Main">
        <ul>
          {NAV.map((n) => <li key={n.to}><NavLink to={n.to}>{n.label}</NavLink></li>)}
        </ul>
      </nav>
      <div className="who">
        <LiveUpdates onRefused={() => void qc.invalidateQueries({ queryKey: sessionQuery.queryKey })} />
        <span>{session.user.email} · {session.organization.name}</span>
        <button type="button" className="secondary" onClick={() => out.mutate()} disabled={out.isPending}>Sign out</button>
      </div>
      {out.error && <ErrorDisplay error={out.error} />}
    </header>
  );
}

/** The signed-in shell: persistent navigation, and a redirect to sign-in (keeping the address) without a session. */
export function Layout() {
  const session = useSessionQuery();
  const location = useLocation();
  if (session.isPending) return <main className="content"><Loading /></main>;
  if (session.error) return <main className="content"><ErrorDisplay error={session.error} /></main>;
  if (!session.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return (
    <SessionProvider session={session.data}>
      <Nav session={session.data} />
      <main id="main" className="content" tabIndex={-1}>
        <Outlet />
      </main>
    </SessionProvider>
  );
}
