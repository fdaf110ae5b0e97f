import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { addMember, createIntegration, createOrg, sleep, startServer, stopAll, type CreatedOrg, type ServerProcess } from '../support/process.ts';
import { startHttpSink, startSmtpSink, type HttpSink, type SmtpSink } from '../support/sinks.ts';
import { createTestStore, eachStore, type TestStore } from '../support/stores.ts';

/**
 * Paging that does not stop until someone answers, on real processes: an alert opens an incident with a
 * two-step policy; step 1 emails the on-call (a real SMTP server); nobody answers; step 2 posts to a
 * Slack-format and an ntfy-format receiver; the acknowledge link from the email, opened and confirmed over
 * HTTP, stops it. And a server SIGKILLed between steps: after the restart the next step fires, once.
 */

// A policy "minute" lasts 1 s here (ESCALATION_MINUTE_MS, for tests only).
const MINUTE_MS = 1000;
const STEP_DELAY = 3;

eachStore('escalation end to end', { together: true }, (kind) => {
  let store: TestStore;
  let smtp: SmtpSink;
  let web: HttpSink;
  let server: ServerProcess;
  const servers: ServerProcess[] = [];
  let org: CreatedOrg;
  let oncall: { id: string; email: string };
  let ingestPath: string;

  const start = async () => {
    server = await startServer({
      DATABASE_URL: store.url, SMTP_URL: smtp.url, SMTP_FROM: 'AlertFlow <alerts@alertflow.test>', OUTBOUND_ALLOW: '127.0.0.1/32',
      BASE_URL: 'https://alertflow.example.com', JOB_POLL_MS: '50', JOB_LEASE_SECONDS: '2', ESCALATION_MINUTE_MS: String(MINUTE_MS),
    }, { timeoutMs: 90_000 });
    servers.push(server);
  };
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await server.request(method, `/api/v1${path}`, { key: org.apiKey, ...(body !== undefined && { body }) });
    assert.ok(r.status < 300, `${method} ${path}: ${r.status} ${r.raw}`);
    return r.body;
  };
  const ingest = async (title: string, service: string) => {
    const r = await server.request('POST', ingestPath, { body: { title, severity: 'critical', labels: { service } } });
    assert.equal(r.status, 200, r.raw);
    return r.body.data.alerts[0].alertId as string;
  };
  const hitsFor = (path: string, title: string) => web.hits.filter((h) => h.path === path && h.body.toString().includes(title));
  const mailsFor = (title: string) => smtp.mails.filter((m) => (m.headers.subject ?? '').includes(title));
  const incidentOf = async (alertId: string) => eventually('the incident', async () => ((await api('GET', `/alerts/${alertId}`)).data.incidentId as string | null) ?? undefined);

  before(async () => {
    [store, smtp, web] = await Promise.all([createTestStore(kind), startSmtpSink(), startHttpSink()]);
    await start();
    org = await createOrg(store.url);
    oncall = await addMember(store.url, org.org.id, 'olga@acme.test', 'Olga Oncall');
    ingestPath = (await createIntegration(server, org.apiKey)).path;
    // Olga is on call around the clock.
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const schedule = await api('POST', '/schedules', { name: 'Primary', layers: [{ name: 'Week', startsAt: since, rotation: 'weekly', users: [oncall.id] }] });
    // Step 1: the on-call, by email (no contact methods: their account address). Step 2: the team's Slack and
    // ntfy. Step 3 is there to show it never comes, and so is the repeat.
    const policy = await api('POST', '/escalation-policies', {
      name: 'Databases', repeat: 1,
      steps: [
        { delayMinutes: STEP_DELAY, targets: [{ type: 'schedule', id: schedule.data.id }] },
        { delayMinutes: STEP_DELAY, targets: [
          { type: 'channel', channel: 'slack', target: { webhookUrl: `${web.base}/slack` } },
          { type: 'channel', channel: 'ntfy', target: { serverUrl: `${web.base}/ntfy`, topic: 'db-oncall', token: 'tk_secret' } },
        ] },
        { delayMinutes: STEP_DELAY, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}/step3` } }] },
      ],
    });
    await api('POST', '/workflows', {
      name: 'Page the DBAs', trigger: 'alert.created',
      actions: [{ type: 'create_incident', groupBy: ['labels.service'] }, { type: 'escalate', policyId: policy.data.id }],
    });
  });
  after(async () => {
    await stopAll(servers);
    await Promise.all([smtp.close(), web.close()]);
    await store.drop();
  });

  it('emails the on-call, then posts to Slack and ntfy; the link from the email, confirmed over HTTP, stops it', async () => {
    const title = 'Replication lag on db-2';
    const alertId = await ingest(title, 'db');
    const incidentId = await incidentOf(alertId);
    const mail = await eventually('the step 1 email', () => mailsFor(title)[0], 60_000);
    assert.deepEqual(mail.to, [oncall.email]);
    const link = /Acknowledge: (https:\/\/alertflow\.example\.com\/links\/\S+)/.exec(mail.text)?.[1];
    assert.ok(link, mail.text);
    assert.equal(hitsFor('/slack', title).length, 0, 'step 2 waits for its delay');

    const slack = await eventually('the step 2 Slack post', () => hitsFor('/slack', title)[0], 60_000);
    const blocks = JSON.parse(slack.body.toString()).blocks as Array<Record<string, any>>;
    assert.match(blocks[0]!.text.text, /\[CRITICAL\] #\d+ Replication lag on db-2/);
    assert.ok(JSON.stringify(blocks).includes('/links/'), 'Slack carries an acknowledge button');
    const ntfy = await eventually('the step 2 ntfy post', () => hitsFor('/ntfy', title)[0]);
    const push = JSON.parse(ntfy.body.toString());
    assert.equal(push.topic, 'db-oncall');
    assert.equal(push.priority, 5);
    assert.equal(ntfy.headers.authorization, 'Bearer tk_secret');
    assert.match(push.actions[0].url, /\/links\//);

    // Opening the link changes nothing (mail scanners fetch links); the confirmation's POST acknowledges.
    const url = `${server.url}${new URL(link).pathname}`;
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form method="post">/);
    assert.equal((await api('GET', `/incidents/${incidentId}`)).data.status, 'triggered');
    const confirmed = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
    assert.equal(confirmed.status, 200);
    assert.match(await confirmed.text(), /acknowledged/);
    const incident = (await api('GET', `/incidents/${incidentId}`)).data;
    assert.equal(incident.status, 'acknowledged');
    const ack = incident.timeline.find((t: Record<string, any>) => t.type === 'status_changed');
    assert.deepEqual(ack.actor, { type: 'user', id: oncall.id });
    assert.equal((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })).status, 409);

    // No step 3, no repeat: wait past both.
    await sleep(2 * STEP_DELAY * MINUTE_MS + 1500);
    assert.equal(hitsFor('/step3', title).length, 0);
    assert.equal(mailsFor(title).length, 1);
    assert.equal(hitsFor('/slack', title).length, 1);
    assert.equal(hitsFor('/ntfy', title).length, 1);
    const steps = incident.timeline.filter((t: Record<string, any>) => t.type === 'escalation_step').map((t: Record<string, any>) => t.data.step);
    assert.deepEqual(steps, [1, 2]);
    assert.ok(incident.timeline.some((t: Record<string, any>) => t.type === 'escalation_stopped' && t.data.reason === 'acknowledged'));
    const log = (await api('GET', `/alerts/${alertId}/notifications`)).data as Array<Record<string, any>>;
    assert.deepEqual(log.map((n) => `${n.source}:${n.step}:${n.channel}:${n.status}`).sort(), ['escalation:1:email:sent', 'escalation:2:ntfy:sent', 'escalation:2:slack:sent']);
  });

  it('a server SIGKILLed between steps resumes after a restart: the next step fires once, no step twice', async () => {
    const title = 'Connections exhausted on db-7';
    const alertId = await ingest(title, 'db-pool');
    const incidentId = await incidentOf(alertId);
    await eventually('the step 1 email', () => mailsFor(title)[0], 60_000);
    server.signal('SIGKILL');
    await server.exited;
    await start();

    await eventually('step 2 after the restart', () => hitsFor('/slack', title)[0], 90_000);
    await eventually('step 3 after the restart', () => hitsFor('/step3', title)[0], 60_000);
    await api('PATCH', `/incidents/${incidentId}`, { status: 'acknowledged' });
    await sleep(STEP_DELAY * MINUTE_MS + 1500);
    assert.equal(mailsFor(title).length, 1, 'step 1 once');
    assert.equal(hitsFor('/slack', title).length, 1, 'step 2 once');
    assert.equal(hitsFor('/ntfy', title).length, 1, 'step 2 once');
    assert.equal(hitsFor('/step3', title).length, 1, 'step 3 once');
    const steps = (await api('GET', `/incidents/${incidentId}`)).data.timeline
      .filter((t: Record<string, any>) => t.type === 'escalation_step').map((t: Record<string, any>) => t.data.step);
    assert.deepEqual(steps, [1, 2, 3]);
  });

  // The rule of docs/paging.md ("Acknowledge and resolve"), on the running server; independent incidents, so
  // their waits overlap.
  describe('one rule for acknowledge and resolve', { concurrency: true }, () => {
    const alertStatus = async (id: string) => (await api('GET', `/alerts/${id}`)).data.status as string;
    /** Waits past the next step's delay: the step job runs, finds the escalation stopped, and pages nobody. */
    const pastNextStep = () => sleep(STEP_DELAY * MINUTE_MS + 1500);

    it('acknowledging the only alert of an incident acknowledges the incident: step 2 never pages', async () => {
      const title = 'Checkpoint stalled on db-4';
      const alertId = await ingest(title, 'db-checkpoint');
      const incidentId = await incidentOf(alertId);
      await eventually('the step 1 email', () => mailsFor(title)[0], 60_000);
      await api('POST', `/alerts/${alertId}/acknowledge`);
      const incident = (await api('GET', `/incidents/${incidentId}`)).data;
      assert.equal(incident.status, 'acknowledged');
      assert.ok(incident.timeline.some((t: Record<string, any>) => t.type === 'escalation_stopped' && t.data.reason === 'acknowledged'));
      await pastNextStep();
      assert.equal(hitsFor('/slack', title).length, 0, 'step 2 never pages');
      assert.equal(hitsFor('/ntfy', title).length, 0, 'step 2 never pages');
      assert.equal(mailsFor(title).length, 1);
    });

    it('resolving the incident resolves its alerts', async () => {
      const first = await ingest('Vacuum behind on db-5', 'db-vacuum');
      const second = await ingest('Bloat growing on db-5', 'db-vacuum');
      const incidentId = await incidentOf(first);
      assert.equal(await incidentOf(second), incidentId);
      await api('PATCH', `/incidents/${incidentId}`, { status: 'resolved' });
      assert.deepEqual([await alertStatus(first), await alertStatus(second)], ['resolved', 'resolved']);
      assert.equal((await api('GET', `/alerts?status=firing,acknowledged,suppressed&label=service=db-vacuum`)).meta.total, 0, 'nothing of it is left open');
    });

    it('a three-alert incident with one alert acknowledged stays triggered and pages step 2; the last acknowledged stops it', async () => {
      const title = 'Pool saturated on db-6';
      const ids = [await ingest(`${title} (a)`, 'db-pool-6'), await ingest(`${title} (b)`, 'db-pool-6'), await ingest(`${title} (c)`, 'db-pool-6')];
      const incidentId = await incidentOf(ids[0] as string);
      for (const id of ids.slice(1)) assert.equal(await incidentOf(id), incidentId);
      await eventually('the step 1 email', () => mailsFor(title)[0], 60_000);
      await api('POST', `/alerts/${ids[0]}/acknowledge`);
      assert.equal((await api('GET', `/incidents/${incidentId}`)).data.status, 'triggered', 'two alerts still fire');
      await eventually('the step 2 Slack post', () => hitsFor('/slack', title)[0], 60_000);
      await api('POST', '/alerts/bulk', { action: 'acknowledge', ids: ids.slice(1) });
      assert.equal((await api('GET', `/incidents/${incidentId}`)).data.status, 'acknowledged');
      await pastNextStep();
      assert.equal(hitsFor('/step3', title).length, 0, 'step 3 never pages');
      assert.equal(hitsFor('/slack', title).length, 1);
    });
  });
});
