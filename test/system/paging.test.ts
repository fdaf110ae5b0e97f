import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createIntegration, createOrg, runCli, sleep, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { startHttpSink, startSmtpSink, type HttpSink, type SmtpSink } from '../support/sinks.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';
import { eventually } from '../support/eventually.ts';

/**
 * From alert to the right person, on real ports and real processes: ingest → workflow → incident →
 * assignment to the current on-call → email to a real SMTP server and a signed webhook to a local HTTP
 * server; retries of a failing target; and a worker killed mid-delivery.
 */

const SECRET = 'e2e-webhook-secret-0123456789';

const signatureOf = (body: Buffer) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

eachStore('paging the on-call end to end', { together: true }, (kind) => {
  let store: TestStore;
  let smtp: SmtpSink;
  let web: HttpSink;
  let server: ServerProcess;
  const servers: ServerProcess[] = [];
  let org: CreatedOrg;
  let oncall: { id: string; email: string };
  let scheduleId: string;
  let ingestPath: string;

  const env = () => ({
    DATABASE_URL: store.url,
    SMTP_URL: smtp.url,
    SMTP_FROM: 'AlertFlow <alerts@alertflow.test>',
    OUTBOUND_ALLOW: '127.0.0.1/32',
    BASE_URL: 'https://alertflow.example.com',
    JOB_POLL_MS: '50',
    // A killed worker's job is taken up after this.
    JOB_LEASE_SECONDS: '2',
  });
  const start = async () => {
    server = await startServer(env());
    servers.push(server);
    return server;
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await server.request(method, `/api/v1${path}`, { key: org.apiKey, ...(body !== undefined && { body }) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const workflow = (name: string, service: string, actions: unknown[]) =>
    api('POST', '/workflows', { name, trigger: 'alert.created', conditions: { field: 'labels.service', op: 'eq', value: service }, actions });
  const ingest = async (payload: Record<string, unknown>) => {
    const r = await server.request('POST', ingestPath, { body: payload });
    assert.equal(r.status, 200, r.raw);
    return r.body.data.alerts[0].alertId as string;
  };
  const deliveries = async (alertId: string) => (await api('GET', `/alerts/${alertId}/notifications`)).data as Array<Record<string, any>>;

  before(async () => {
    store = await createTestStore(kind);
    smtp = await startSmtpSink();
    web = await startHttpSink();
    await start();
    org = await createOrg(store.url);
    const added = await runCli(['user', 'add', '--org', org.org.id, '--email', 'olga@acme.test', '--name', 'Olga Oncall', '--json'], { DATABASE_URL: store.url });
    assert.equal(added.code, 0, added.stderr);
    oncall = JSON.parse(added.stdout).user;
    ingestPath = (await createIntegration(server, org.apiKey)).path;
    // Olga is on call around the clock from an hour ago.
    const schedule = await api('POST', '/schedules', {
      name: 'Primary', timezone: 'Europe/Berlin',
      layers: [{ name: 'Week', startsAt: new Date(Date.now() - 3_600_000).toISOString(), rotation: 'weekly', users: [oncall.id] }],
    });
    scheduleId = schedule.data.id;
  });
  after(async () => {
    await stopAll(servers);
    await Promise.all([smtp.close(), web.close()]);
    await store.drop();
  });

  it('opens an incident, assigns the on-call, emails them and the team, and calls the signed webhook', async () => {
    const flow = (await workflow('Page the DBAs', 'db', [
      { type: 'create_incident', groupBy: ['labels.service'], title: 'Database: {{alert.title}}' },
      { type: 'assign', scheduleId },
      { type: 'email', to: ['dba-team@example.com'], toOnCall: scheduleId },
      { type: 'webhook', url: `${web.base}/hook`, secret: SECRET },
    ])).data as { id: string };
    const alertId = await ingest({
      title: 'Replication lag on db-2', severity: 'critical', source: 'prometheus',
      description: 'Replica db-2 is 95 s behind the primary.', labels: { service: 'db', host: 'db-2' },
      annotations: { runbook: 'https://runbooks.example.com/replication-lag' },
    });

    // One email per recipient: the team's address and the on-call's, each its own delivery.
    const mails = await eventually('the emails', () => {
      const m = smtp.mails.filter((x) => x.text.includes('Replica db-2 is 95 s behind the primary.'));
      return m.length === 2 ? m : undefined;
    });
    assert.deepEqual(mails.flatMap((m) => m.to).sort(), ['dba-team@example.com', oncall.email].sort());
    const mail = mails[0]!;
    assert.match(mail.headers.subject ?? '', /CRITICAL/i);
    assert.match(mail.headers.subject ?? '', /Replication lag on db-2/);
    assert.ok(mail.text.includes('https://runbooks.example.com/replication-lag'), mail.text);
    assert.ok(mail.text.includes(`https://alertflow.example.com/alerts/${alertId}`), mail.text);

    const hit = await eventually('the webhook', () => web.hits.find((h) => h.path === '/hook'));
    assert.equal(hit.headers['x-alertflow-signature'], signatureOf(hit.body));
    assert.ok(Number(hit.headers['x-alertflow-timestamp']) > 0);
    const body = JSON.parse(hit.body.toString('utf8'));
    assert.equal(body.alert.id, alertId);
    assert.equal(body.incident.title, 'Database: Replication lag on db-2');

    const incidents = (await api('GET', '/incidents?status=triggered')).data as Array<Record<string, any>>;
    assert.equal(incidents.length, 1);
    const incident = incidents[0]!;
    assert.equal(incident.number, 1);
    assert.equal(incident.assigneeId, oncall.id);
    assert.equal(incident.alertCount, 1);
    assert.equal(incident.severity, 'critical');

    // A second alert of the same service joins the incident and pages nobody again: after create_incident the
    // workflow's pages are the incident's, once per target (docs/paging.md, one page per storm).
    const second = await ingest({ title: 'Connections exhausted on db-1', severity: 'high', labels: { service: 'db', host: 'db-1' } });
    const run = await eventually('the second alert\'s run', async () => {
      const runs = (await api('GET', `/workflows/${flow.id}/runs`)).data as Array<{ alertId: string; actions: Array<{ status: string; detail?: string }> }>;
      const r = runs.find((x) => x.alertId === second);
      return r && r.actions.length === 4 ? r : undefined;
    });
    assert.match(run.actions[0]!.detail ?? '', /joined incident #1/);
    assert.deepEqual(run.actions.slice(2).map((a) => `${a.status}: ${a.detail}`), ['skipped: already notified', 'skipped: already notified']);
    assert.deepEqual(await deliveries(second), [], 'the second alert queued no page');
    const detail = await eventually('both alerts and notifications on the incident', async () => {
      const d = (await api('GET', `/incidents/${incident.id}`)).data;
      return d.alertCount === 2 && d.timeline.filter((t: { type: string }) => t.type === 'notification_sent').length === 3 ? d : undefined;
    });
    assert.deepEqual(detail.alerts.map((a: { id: string }) => a.id).sort(), [alertId, second].sort());
    const types = detail.timeline.map((t: { type: string }) => t.type);
    assert.deepEqual(types.slice(0, 3), ['opened', 'alert_joined', 'assigned']);
    assert.equal(types.filter((t: string) => t === 'alert_joined').length, 2);
    assert.equal((await api('GET', '/incidents')).data.length, 1, 'no second incident for the same group');
    assert.equal((await deliveries(alertId)).filter((d) => d.status === 'sent').length, 3, 'two emails and the webhook');

    // Resolving both alerts resolves the incident by itself.
    await api('POST', '/alerts/bulk', { action: 'resolve', ids: [alertId, second] });
    await eventually('the incident to resolve', async () => ((await api('GET', `/incidents/${incident.id}`)).data.status === 'resolved' ? true : undefined));
  });

  it('retries a webhook target that fails twice, and logs exactly one successful delivery', async () => {
    web.script.set('/flaky', [503, 500, 200]);
    await workflow('Flaky receiver', 'flaky', [{ type: 'webhook', url: `${web.base}/flaky`, secret: SECRET }]);
    const alertId = await ingest({ title: 'Queue depth high', severity: 'medium', labels: { service: 'flaky' } });
    const log = await eventually('the delivery to succeed', async () => {
      const d = await deliveries(alertId);
      return d.length === 1 && d[0]!.status === 'sent' ? d : undefined;
    });
    assert.equal(log[0]!.attempts, 3);
    assert.equal(log[0]!.responseStatus, 200);
    const hits = web.hits.filter((h) => h.path === '/flaky');
    assert.equal(hits.length, 3);
    assert.equal(new Set(hits.map((h) => h.headers['x-alertflow-delivery'])).size, 1, 'every attempt carries the same delivery id');
  });

  it('a worker killed mid-delivery is taken over after a restart, and the target accepts exactly one delivery', async () => {
    // The first request is never answered: the process dies while waiting for it.
    web.script.set('/hold', [0, 200]);
    const wf = await workflow('Held receiver', 'hold', [{ type: 'webhook', url: `${web.base}/hold`, secret: SECRET }]);
    const alertId = await ingest({ title: 'Certificate expires in 3 days', severity: 'low', labels: { service: 'hold' } });
    await eventually('the first attempt to reach the target', () => web.hits.find((h) => h.path === '/hold'));
    server.signal('SIGKILL');
    await server.exited;

    await start();
    const log = await eventually('the delivery after the restart', async () => {
      const d = await deliveries(alertId);
      return d.length === 1 && d[0]!.status === 'sent' ? d : undefined;
    }, 60_000);
    assert.equal(log[0]!.responseStatus, 200);
    const hits = web.hits.filter((h) => h.path === '/hold');
    // Two requests reached the target, the first cut off unanswered by the kill; one was accepted. Both carry
    // the same delivery id, so a receiver that saw the first in full can tell the second is a repeat.
    assert.equal(hits.length, 2);
    assert.equal(new Set(hits.map((h) => h.headers['x-alertflow-delivery'])).size, 1);
    await sleep(1500);
    assert.equal(web.hits.filter((h) => h.path === '/hold').length, 2, 'nothing is sent after the accepted delivery');
    const runs = (await api('GET', `/workflows/${wf.data.id}/runs`)).data as Array<{ alertId: string }>;
    assert.equal(runs.filter((r) => r.alertId === alertId).length, 1, 'the workflow ran once for the alert');
  });
});
