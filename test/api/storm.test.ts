import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createContainer, type Container } from '../../src/container.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { startHttpSink, startSmtpSink, type HttpSink, type SmtpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

const STORM = 500;

/**
 * One page per storm: 500 alerts of one service within 10 seconds, grouped by a workflow into one incident, page
 * each person and target once (the escalation's email, the workflow's email to two people and its webhook), not once
 * per alert; the first pages wait for the group wait and tell how many alerts joined; pages that follow say "+499".
 * The API instance takes the storm with no worker; a second instance on the same store works it afterwards, so the
 * whole storm is queued before the first workflow run.
 */
eachStore('one page per storm', { together: true }, (kind) => {
  let h: Harness;
  let worker: Container;
  let smtp: SmtpSink;
  let web: HttpSink;

  before(async () => {
    smtp = await startSmtpSink();
    web = await startHttpSink();
    h = await startHarness(kind, { JOB_WORKERS: 'false', SMTP_URL: smtp.url, OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '50', ESCALATION_MINUTE_MS: '60000' });
  });
  after(async () => {
    await worker?.close();
    await h.close();
    await smtp.close();
    await web.close();
  });

  it(`${STORM} alerts in 10 s: one incident, one page per person and target, "+N alerts" in the pages`, async () => {
    const policy = (await h.ok('POST', '/api/v1/escalation-policies', { body: {
      name: 'Primary', steps: [
        { delayMinutes: 5, targets: [{ type: 'channel', channel: 'email', target: { to: 'oncall@acme.test' } }] },
        // Not reached in this test (a "minute" is a minute): it keeps the escalation running.
        { delayMinutes: 5, targets: [{ type: 'channel', channel: 'email', target: { to: 'manager@acme.test' } }] },
      ],
    } }, 201)).data.id;
    await h.ok('POST', '/api/v1/workflows', { body: {
      name: 'Page the service owner', trigger: 'alert.created', enabled: true,
      actions: [
        { type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.labels.service}} is down', escalationPolicyId: policy, groupWaitSeconds: 2 },
        { type: 'email', to: ['lead@acme.test', 'sre@acme.test'] },
        { type: 'webhook', url: `${web.base}/hook`, secret: 'a-webhook-secret-of-some-length' },
      ],
    } }, 201);
    const path = (await h.integration()).path;
    // 500 alerts of one service over 10 seconds, 10 to a payload-burst.
    for (let i = 0; i < STORM; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => h.ingestAlert(path, { title: `checkout pod ${i + j} down`, severity: 'critical', labels: { service: 'checkout' } })));
      h.clock.advance(200);
    }
    worker = await createContainer(h.config, { log: pino({ level: 'silent' }), clock: h.clock, workers: true });
    const runs = () => h.c.store.db.selectFrom('workflow_runs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    await eventually('every alert\'s workflow run', async () => (Number((await runs()).n) === STORM ? true : undefined), 120_000, 200);
    const incidents = (await h.ok('GET', '/api/v1/incidents')).data;
    assert.equal(incidents.length, 1, 'one incident for the storm');
    assert.equal(incidents[0].alertCount, STORM);

    const to = (address: string) => smtp.mails.filter((m) => m.to.includes(address));
    await eventually('the pages', () => (to('oncall@acme.test').length && to('lead@acme.test').length && to('sre@acme.test').length && web.hits.length ? true : undefined), 60_000, 100);
    const sent = await h.c.store.db.selectFrom('notifications').select(['target', 'status', 'source']).where('org_id', '=', h.org.id).execute();
    // Pages sent = people and targets paged: the escalation's email, the two addresses, the webhook.
    assert.deepEqual(sent.map((n) => `${n.source} ${n.target}`).sort(), [
      'escalation oncall@acme.test', 'workflow lead@acme.test', 'workflow sre@acme.test', `workflow ${web.base}/hook`,
    ].sort());
    for (const address of ['oncall@acme.test', 'lead@acme.test', 'sre@acme.test']) assert.equal(to(address).length, 1, address);
    assert.equal(web.hits.length, 1);
    // The group wait collected alerts before the first page: it says how many more the incident holds.
    const summary = /\(\+(\d+) alerts\)/.exec(to('lead@acme.test')[0]?.headers.subject ?? '');
    assert.ok(summary && Number(summary[1]) > 0, `the first page counts the alerts collected: ${to('lead@acme.test')[0]?.headers.subject}`);
    const hook = JSON.parse(web.hits[0]?.body.toString() ?? '{}');
    assert.ok(hook.incident.alertCount > 1, 'the webhook carries the incident with its alert count');

    // A page that follows the storm (the incident reassigned: its escalation pages from step 1 again) says +499.
    await h.ok('PUT', `/api/v1/incidents/${incidents[0].id}`, { body: { assigneeId: h.org.ownerId } });
    await eventually('the page after the storm', () => (to('oncall@acme.test').length === 2 ? true : undefined), 60_000, 100);
    assert.match(to('oncall@acme.test')[1]?.headers.subject ?? '', /\(\+499 alerts\)/);
    assert.match(to('oncall@acme.test')[1]?.text ?? '', /\+499 alerts/);
  });
});
