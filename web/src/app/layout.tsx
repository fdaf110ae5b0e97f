import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
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
  { to: '/my-oncall', label: 'My on-call' },
  { to: '/oncall', label: 'On call' },
  { to: '/escalation-policies', label: 'Escalation' },
  { to: '/integrations', label: 'Integrations' },
  { to: '/heartbeats', label: 'Heartbeats' },
  { to: '/workflows', label: 'Workflows' },
  { to: '/suppression', label: 'Suppression' },
  { to: '/clients', label: 'Clients' },
  { to: '/client-board', label: 'Client board' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/members', label: 'Members' },
  { to: '/settings/channels', label: 'Channels' },
  { to: '/settings/api-keys', label: 'API keys' },
  { to: '/audit-log', label: 'Audit log' },
  { to: '/profile', label: 'Your profile' },
];

function Nav({ session }: { session: SessionView }) {
  const replace = useReplaceSession();
  const navigate = useNavigate();
  const qc = useQueryClient();
  // On a phone the 16 links would push every page down by a screen's third: they fold behind a Menu button there.
  const [menuOpen, setMenuOpen] = useState(false);
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
      <button type="button" className="secondary menu-toggle" aria-expanded={menuOpen} aria-controls="main-nav" onClick={() => setMenuOpen(!menuOpen)}>
        Menu
      </button>
      <nav aria-label="Main" id="main-nav" className={menuOpen ? 'open' : undefined}>
        <ul>
          {NAV.map((n) => <li key={n.to}><NavLink to={n.to} onClick={() => setMenuOpen(false)}>{n.label}</NavLink></li>)}
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
