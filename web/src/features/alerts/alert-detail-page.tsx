import { Link, useParams } from 'react-router';
import type { Alert } from '../../api/types';
import { FlappingBadge, SeverityBadge, StatusBadge } from '../../components/badges';
import { EmptyState } from '../../components/empty-state';
import { ErrorDisplay, RecordError } from '../../components/error-display';
import { formatTime, plural, safeHref } from '../../components/format';
import { useActorText } from '../../api/actors';
import { Loading, Page } from '../../components/page';
import { useCan } from '../auth/session';
import { useAlert, useAlertNotifications, useBulkAction, useIncident } from './alerts-api';
import { answerText, deliveryStatus } from './delivery-fns';
import { CodeBlock } from '../../components/code-block';
import { TableWrap } from '../../components/table-wrap';
import { useIntegration } from '../integrations/integrations-api';
import { senderLink } from './sender-link';

/** Key/value pairs a sender wrote, as text; a value becomes a link only when it is an http(s) URL. */
function Pairs({ values, links = false }: { values: Record<string, string>; links?: boolean }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <p className="muted">None</p>;
  return (
    <dl className="pairs">
      {entries.map(([k, v]) => {
        const href = links ? safeHref(v) : null;
        return (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{href ? <a href={href} target="_blank" rel="noopener noreferrer nofollow">{v}</a> : v}</dd>
          </div>
        );
      })}
    </dl>
  );
}


function rawText(payload: unknown): string {
  if (payload === undefined || payload === null) return '';
  return typeof payload === 'string' ? payload : JSON.stringify(payload, null, 2);
}

function Incident({ id }: { id: string }) {
  const incident = useIncident(id);
  if (incident.isPending) return <p className="muted">Loading…</p>;
  if (incident.error) return <p>Incident {id}</p>;
  const i = incident.data.data;
  return <p><Link to={`/incidents/${id}`}>#{i.number} {i.title}</Link> · <StatusBadge value={i.status} /> · {plural(i.alertCount, 'alert')} · opened {formatTime(i.createdAt)}</p>;
}

/** The integration by its name; its id while the name loads or cannot be read (no integrations:read). */
function IntegrationName({ id }: { id: string }) {
  const integration = useIntegration(id);
  return <Link to={`/integrations/${id}`}>{integration.data?.data.name ?? id}</Link>;
}

function Notifications({ id }: { id: string }) {
  const list = useAlertNotifications(id);
  if (list.isPending) return <Loading rows={2} />;
  if (list.error) return <ErrorDisplay error={list.error} />;
  if (list.data.data.length === 0) return <p className="muted">No notification was sent for this alert. Workflows send them.</p>;
  return (
    <TableWrap label="Notifications">
      <table>
        <thead><tr><th scope="col">Channel</th><th scope="col">Target</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Sent</th></tr></thead>
        <tbody>
          {list.data.data.map((n) => (
            <tr key={n.id}>
              <td>{n.channel}</td><td className="break">{n.target}</td>
              <td>
                {deliveryStatus(n)}
                {n.answers.length > 0 && (
                  <ul className="short-list" aria-label="Answers">
                    {n.answers.map((a) => <li key={`${a.at}-${a.action}-${a.via}`} data-testid="answer">{answerText(a)}, {formatTime(a.at)}</li>)}
                  </ul>
                )}
              </td>
              <td className="num">{n.attempts}</td><td>{formatTime(n.sentAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

/**
 * Its fingerprint's state history in its integration, drawn as a strip: firing spans (red) on a resolved
 * (green) ground, oldest to now; the list below says the same in words.
 */
function History({ history, flapping }: { history: Alert['history']; flapping: boolean }) {
  if (history.length === 0) return <p className="muted">Not from an integration: no history.</p>;
  const now = Date.now();
  const spans = history.map((h) => ({ ...h, from: Date.parse(h.firedAt), to: h.resolvedAt ? Date.parse(h.resolvedAt) : now })).reverse();
  const start = spans[0]?.from ?? now;
  const width = Math.max(1, now - start);
  const pct = (ms: number) => `${((ms / width) * 100).toFixed(3)}%`;
  return (
    <figure className="flap-history">
      <div className="flap-strip" aria-hidden="true">
        {spans.map((s) => <span key={s.alertId} className="flap-firing" style={{ left: pct(s.from - start), width: pct(s.to - s.from) }} />)}
      </div>
      <figcaption>
        Fired {history.length === 1 ? 'once' : `${history.length} times`} since {formatTime(history[history.length - 1]?.firedAt ?? null)}
        {flapping ? '; flapping now: its changes do not page until it is stable.' : '.'}
      </figcaption>
      <details>
        <summary>Each time it fired</summary>
        <ol className="flap-list">
          {history.map((h) => (
            <li key={h.alertId}><Link to={`/alerts/${h.alertId}`}>{formatTime(h.firedAt)}</Link> – {h.resolvedAt ? `resolved ${formatTime(h.resolvedAt)}` : 'still open'}</li>
          ))}
        </ol>
      </details>
    </figure>
  );
}

function Detail({ alert }: { alert: Alert }) {
  const canWrite = useCan('alerts:write');
  const action = useBulkAction();
  const open = alert.status !== 'resolved';
  const canSuppress = useCan('suppression:write');
  const actorText = useActorText();
  const link = senderLink(alert.annotations);
  const suppress = canSuppress ? <Link className="button secondary" to={`/suppression/new?fromAlert=${encodeURIComponent(alert.id)}`}>Suppress alerts like this…</Link> : undefined;
  const byWhom = (at: string | null, by: Alert['acknowledgedBy'], never: string) => (at ? `${formatTime(at)} by ${actorText(by)}` : never);
  return (
    <Page
      title={alert.title}
      actions={canWrite && open ? (
        <>
          {alert.status !== 'acknowledged' && (
            <button type="button" disabled={action.isPending} onClick={() => action.mutate({ action: 'acknowledge', ids: [alert.id] })}>Acknowledge</button>
          )}
          <button type="button" disabled={action.isPending} onClick={() => action.mutate({ action: 'resolve', ids: [alert.id] })}>Resolve</button>
          {suppress}
        </>
      ) : suppress}
    >
      <ErrorDisplay error={action.error} />
      <p className="meta-line"><SeverityBadge value={alert.severity} /> <StatusBadge value={alert.status} />{alert.flapping && <> <FlappingBadge /></>} <span>{alert.source ?? 'no source'}</span></p>
      {/* The sender's own page of this alert: only an http(s) URL, opened without access to this page. */}
      {link && <p><a href={link.href} target="_blank" rel="noopener noreferrer nofollow">Open in {link.host}</a></p>}
      <div className="grid-2">
        <section className="panel">
          <h2>Description</h2>
          {alert.description ? <p className="prewrap">{alert.description}</p> : <p className="muted">No description</p>}
          <h2>Labels</h2>
          <Pairs values={alert.labels} />
          <h2>Annotations</h2>
          <Pairs values={alert.annotations} links />
        </section>
        <section className="panel">
          <h2>Timeline</h2>
          <dl className="pairs">
            <div><dt>Created</dt><dd>{formatTime(alert.createdAt)}</dd></div>
            <div><dt>Last seen</dt><dd>{formatTime(alert.lastSeenAt)}</dd></div>
            <div><dt>Occurrences</dt><dd>{alert.occurrences}</dd></div>
            <div><dt>Acknowledged</dt><dd>{byWhom(alert.acknowledgedAt, alert.acknowledgedBy, 'Not acknowledged')}</dd></div>
            <div><dt>Resolved</dt><dd>{byWhom(alert.resolvedAt, alert.resolvedBy, 'Not resolved')}</dd></div>
            <div><dt>Fingerprint</dt><dd className="break">{alert.fingerprint}</dd></div>
            <div><dt>Integration</dt><dd>{alert.integrationId ? <IntegrationName id={alert.integrationId} /> : '—'}</dd></div>
          </dl>
          <h2>Incident</h2>
          {alert.incidentId ? <Incident id={alert.incidentId} /> : <p className="muted">Not part of an incident.</p>}
        </section>
      </div>
      <section className="panel">
        <h2>State history</h2>
        <History history={alert.history} flapping={alert.flapping} />
      </section>
      <section className="panel">
        <h2>Notifications</h2>
        <Notifications id={alert.id} />
      </section>
      <section className="panel">
        <h2>Last raw payload</h2>
        {alert.payload === undefined || alert.payload === null
          ? <p className="muted">Not kept for this alert.</p>
          : <CodeBlock label="Last raw payload" text={rawText(alert.payload)} />}
      </section>
    </Page>
  );
}

export default function AlertDetailPage() {
  const { id = '' } = useParams();
  const alert = useAlert(id);
  if (alert.isPending) return <Page title="Alert"><Loading rows={8} /></Page>;
  if (alert.error) {
    return (
      <Page title="Alert">
        <RecordError error={alert.error} missing={<EmptyState title="This alert does not exist"><p>It may belong to another organization. Go back to <Link to="/alerts">the alerts</Link>.</p></EmptyState>} />
      </Page>
    );
  }
  return <Detail alert={alert.data.data} />;
}
