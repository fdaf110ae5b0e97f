import { createBrowserRouter, Navigate } from 'react-router';
import { alertQueryOf, alertsQuery } from '../features/alerts/alerts-api';
import { Layout } from './layout';
import { queryClient } from './query-client';
import { RouteError } from './route-error';

// Each page is its own chunk: the first load carries only the shell and the page opened.
const page = (load: () => Promise<{ default: React.ComponentType }>) => async () => ({ Component: (await load()).default });

export const router = createBrowserRouter([
  { path: '/sign-in', lazy: page(() => import('../features/auth/sign-in-page')) },
  { path: '/setup', lazy: page(() => import('../features/auth/setup-page')) },
  { path: '/set-password', lazy: page(() => import('../features/auth/set-password-page')) },
  {
    element: <Layout />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <Navigate to="/alerts" replace /> },
      {
        path: 'alerts',
        // The first page of alerts is fetched while the page's code loads, not after it renders.
        loader: ({ request }) => {
          void queryClient.prefetchQuery(alertsQuery(alertQueryOf(new URL(request.url).searchParams)));
          return null;
        },
        lazy: page(() => import('../features/alerts/alerts-page')),
      },
      { path: 'alerts/:id', lazy: page(() => import('../features/alerts/alert-detail-page')) },
      { path: 'integrations', lazy: page(() => import('../features/integrations/integrations-page')) },
      { path: 'integrations/:id', lazy: page(() => import('../features/integrations/integration-page')) },
      { path: 'integrations/:id/mapping', lazy: page(() => import('../features/integrations/mapping-page')) },
      { path: 'workflows', lazy: page(() => import('../features/workflows/workflows-page')) },
      { path: 'workflows/new', lazy: page(() => import('../features/workflows/new-workflow-page')) },
      { path: 'workflows/:id', lazy: page(() => import('../features/workflows/workflow-page')) },
      { path: 'clients', lazy: page(() => import('../features/clients/clients-page')) },
      { path: 'clients/:id', lazy: page(() => import('../features/clients/client-page')) },
      { path: 'clients/:id/report', lazy: page(() => import('../features/clients/client-report-page')) },
      { path: 'client-board', lazy: page(() => import('../features/analytics/client-board-page')) },
      { path: 'analytics', lazy: page(() => import('../features/analytics/analytics-page')) },
      { path: 'heartbeats', lazy: page(() => import('../features/heartbeats/heartbeats-page')) },
      { path: 'heartbeats/:id', lazy: page(() => import('../features/heartbeats/heartbeat-page')) },
      { path: 'escalation-policies', lazy: page(() => import('../features/escalations/escalation-policies-page')) },
      { path: 'escalation-policies/:id', lazy: page(() => import('../features/escalations/escalation-policy-page')) },
      { path: 'settings/channels', lazy: page(() => import('../features/channels/channel-settings-page')) },
      { path: 'settings/api-keys', lazy: page(() => import('../features/api-keys/api-keys-page')) },
      { path: 'audit-log', lazy: page(() => import('../features/audit/audit-page')) },
      { path: 'incidents', lazy: page(() => import('../features/incidents/incidents-page')) },
      { path: 'incidents/:id', lazy: page(() => import('../features/incidents/incident-detail-page')) },
      { path: 'members', lazy: page(() => import('../features/members/members-page')) },
      { path: 'profile', lazy: page(() => import('../features/members/profile-page')) },
      { path: 'profile/contact-methods', lazy: page(() => import('../features/contacts/contact-methods-page')) },
      { path: 'my-oncall', lazy: page(() => import('../features/me/my-oncall-page')) },
      { path: 'oncall', lazy: page(() => import('../features/schedules/oncall-page')) },
      { path: 'oncall/new', lazy: page(() => import('../features/schedules/schedule-editor-page')) },
      { path: 'oncall/:id', lazy: page(() => import('../features/schedules/schedule-page')) },
      { path: 'oncall/:id/edit', lazy: page(() => import('../features/schedules/schedule-editor-page')) },
      { path: 'suppression', lazy: page(() => import('../features/suppression/suppression-page')) },
      { path: 'suppression/new', lazy: page(() => import('../features/suppression/window-editor-page')) },
      { path: 'suppression/:id', lazy: page(() => import('../features/suppression/window-editor-page')) },
      { path: '*', lazy: page(() => import('./not-found-page')) },
    ],
  },
]);
