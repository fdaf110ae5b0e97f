import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { startHttpSink, type HttpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

/**
 * One rule for acknowledge and resolve (docs/paging.md), whichever route answers: an incident answered moves
 * its alerts; its alerts answered move the incident; either stops its escalation and cancels pages not yet
 * sent; a new alert joining an acknowledged incident leaves it acknowledged and pages nobody.
 */

type Rec = Record<string, any>;

eachStore('acknowledge and resolve: one rule for incidents and their alerts', { together: true }, (kind) => {
  let h: Harness;
  let web: HttpSink;
  let org: Org;
  let path: string;
  let services = 0;

  before(async () => {
    web = await startHttpSink();
    h = await startHarness(kind, { OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '20' });
    org = await h.newOrg();
    path = (await h.integration(org)).path;
    // Step 1 posts to a webhook at once; step 2 an hour later (it never comes in these tests).
    const policy = await h.ok('POST', '/api/v1/escalation-policies', {
      key: org.key,
      body: { name: 'Ops', steps: [
        { delayMinutes: 60, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}/page` } }] },
        { delayMinutes: 60, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}/step2` } }] },
      ] },
    }, 201);
    await h.ok('POST', '/api/v1/workflows', {
      key: org.key,
      body: { name: 'Page ops', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: ['labels.service'] }, { type: 'escalate', policyId: policy.data.id }] },
    }, 201);
  });
  after(async () => {
    await h.close();
    await web.close();
  });

  const alert = async (id: string): Promise<Rec> => (await h.ok('GET', `/api/v1/alerts/${id}`, { key: org.key })).data;
  const incident = async (id: string): Promise<Rec> => (await h.ok('GET', `/api/v1/incidents/${id}`, { key: org.key })).data;
  const act = (id: string, action: 'acknowledge' | 'resolve') => h.ok('POST', `/api/v1/alerts/${id}/${action}`, { key: org.key });
  const setStatus = (id: string, status: string) => h.ok('PUT', `/api/v1/incidents/${id}`, { key: org.key, body: { status } });
  const pagesFor = (title: string) => web.hits.filter((x) => x.path === '/page' && x.body.toString().includes(title));

  /** `n` alerts of a service of their own, all in one incident once the workflow has run for each. */
  async function incidentOf(n: number, title = 'Alert'): Promise<{ incidentId: string; alertIds: string[]; service: string }> {
    services += 1;
    const service = `svc-${services}`;
    const alertIds: string[] = [];
    for (let i = 0; i < n; i++) alertIds.push(await h.ingestAlert(path, { title: `${title} ${i + 1}`, fingerprint: `${service}-${i + 1}`, severity: 'critical', labels: { service } }));
    const incidentId = await eventually('the incident of every alert', async () => {
      const ids = new Set(await Promise.all(alertIds.map(async (id) => (await alert(id)).incidentId as string | null)));
      return ids.size === 1 && !ids.has(null) ? [...ids][0] : undefined;
    }) as string;
    return { incidentId, alertIds, service };
  }
  const statuses = async (ids: string[]) => Promise.all(ids.map(async (id) => (await alert(id)).status as string));
  const lastChange = (d: Rec) => d.timeline.filter((t: Rec) => t.type === 'status_changed').at(-1);

  it('acknowledging an incident acknowledges its firing alerts; resolving it resolves its open alerts, by the same actor', async () => {
    const { incidentId, alertIds } = await incidentOf(2);
    await setStatus(incidentId, 'acknowledged');
    assert.deepEqual(await statuses(alertIds), ['acknowledged', 'acknowledged']);
    const acked = await alert(alertIds[0] as string);
    assert.equal(acked.acknowledgedBy.type, 'api_key');
    await setStatus(incidentId, 'resolved');
    assert.deepEqual(await statuses(alertIds), ['resolved', 'resolved']);
    assert.equal((await alert(alertIds[1] as string)).resolvedBy.type, 'api_key');
    const d = await incident(incidentId);
    assert.ok(d.timeline.some((t: Rec) => t.type === 'escalation_stopped' && t.data.reason === 'acknowledged'), 'the acknowledgement stopped the escalation');
  });

  it('one of three alerts acknowledged leaves the incident triggered; the last one acknowledges it, the last resolved resolves it', async () => {
    const { incidentId, alertIds } = await incidentOf(3);
    const [a1, a2, a3] = alertIds as [string, string, string];
    await act(a1, 'acknowledge');
    assert.equal((await incident(incidentId)).status, 'triggered', 'two alerts still fire');
    const bulk = await h.ok('POST', '/api/v1/alerts/bulk', { key: org.key, body: { action: 'acknowledge', ids: [a2, a3] } });
    assert.deepEqual(bulk.data.results.map((r: Rec) => r.status), ['acknowledged', 'acknowledged']);
    let d = await incident(incidentId);
    assert.equal(d.status, 'acknowledged', 'no alert of it fires any more');
    assert.deepEqual(lastChange(d).data, { from: 'triggered', to: 'acknowledged', reason: 'alerts_acknowledged' });
    assert.equal(lastChange(d).actor.type, 'api_key');
    assert.ok(d.timeline.some((t: Rec) => t.type === 'escalation_stopped' && t.data.reason === 'acknowledged'));

    await act(a1, 'resolve');
    await act(a2, 'resolve');
    assert.equal((await incident(incidentId)).status, 'acknowledged', 'one alert is still open');
    await act(a3, 'resolve');
    d = await incident(incidentId);
    assert.equal(d.status, 'resolved');
    assert.deepEqual(lastChange(d).data, { from: 'acknowledged', to: 'resolved', reason: 'alerts_resolved' });
  });

  it('resolving all alerts matching a filter resolves their incident and stops its escalation', async () => {
    const { incidentId, alertIds, service } = await incidentOf(3);
    const body = { action: 'resolve', filter: { label: [`service=${service}`] } };
    const dry = await h.ok('POST', '/api/v1/alerts/bulk-by-filter', { key: org.key, body: { ...body, dryRun: true } });
    assert.equal(dry.data.matching, 3);
    const done = await h.ok('POST', '/api/v1/alerts/bulk-by-filter', { key: org.key, body: { ...body, confirm: { count: 3, asOf: dry.data.asOf } } });
    assert.equal(done.data.changed, 3);
    assert.deepEqual(await statuses(alertIds), ['resolved', 'resolved', 'resolved']);
    const d = await incident(incidentId);
    assert.equal(d.status, 'resolved');
    assert.deepEqual(lastChange(d).data, { from: 'triggered', to: 'resolved', reason: 'alerts_resolved' });
    assert.ok(d.timeline.some((t: Rec) => t.type === 'escalation_stopped'), 'its escalation stopped');
  });

  it('the sender acknowledging and resolving the alerts (ingest payloads) moves the incident the same way', async () => {
    const { incidentId, service } = await incidentOf(2);
    assert.equal((await h.ingest(path, { status: 'acknowledged', title: 'x', severity: 'critical', fingerprint: `${service}-1` })).status, 200);
    assert.equal((await h.ingest(path, { status: 'acknowledged', title: 'x', severity: 'critical', fingerprint: `${service}-2` })).status, 200);
    const acked = await eventually('the incident acknowledged', async () => {
      const d = await incident(incidentId);
      return d.status === 'acknowledged' ? d : undefined;
    });
    assert.equal(lastChange(acked).actor.type, 'integration');
    for (const i of [1, 2]) assert.equal((await h.ingest(path, { status: 'resolved', fingerprint: `${service}-${i}` })).status, 200);
    await eventually('the incident resolved', async () => ((await incident(incidentId)).status === 'resolved' ? true : undefined));
  });

  it('a page not yet sent when its incident is answered is cancelled and never sent', async () => {
    // The webhook fails (503): the page waits for its retry, pending, when its only alert is acknowledged.
    const title = 'Retrying page';
    web.script.set('/page', [503]);
    const { incidentId, alertIds } = await incidentOf(1, title);
    const alertId = alertIds[0] as string;
    const log = async () => (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications`, { key: org.key })).data as Rec[];
    await eventually('the first attempt failed', async () => ((await log())[0]?.lastError ? true : undefined));
    await act(alertId, 'acknowledge');
    const [page] = await log();
    assert.equal(page?.status, 'cancelled');
    assert.equal(page?.lastError, 'Not sent: the incident was acknowledged before it left');
    assert.equal((await incident(incidentId)).status, 'acknowledged');
    // Its retry job comes and attempts nothing: the page stays cancelled, the receiver sees no further attempt.
    const attempts = pagesFor(title).length;
    await h.c.runner.handleDelivery({ notificationId: page?.id, action: { type: 'page', channel: 'webhook', target: { url: `${web.base}/page` } }, event: 'escalation.step', orgId: org.id });
    assert.equal((await log())[0]?.status, 'cancelled');
    assert.equal(pagesFor(title).length, attempts);
    assert.ok(!(await incident(incidentId)).timeline.some((t: Rec) => t.type.startsWith('notification_')), 'nothing was sent, nothing failed');
    web.script.delete('/page');
  });

  it('a new alert joining an acknowledged incident leaves it acknowledged and firing, and pages nobody', async () => {
    const title = 'Joining';
    const { incidentId, service } = await incidentOf(1, title);
    await eventually('the step 1 page', () => pagesFor(title)[0]);
    await setStatus(incidentId, 'acknowledged');
    const joined = await h.ingestAlert(path, { title: `${title} later`, fingerprint: `${service}-late`, severity: 'critical', labels: { service } });
    await eventually('the new alert in the incident', async () => ((await alert(joined)).incidentId === incidentId ? true : undefined));
    const d = await incident(incidentId);
    assert.equal(d.status, 'acknowledged');
    assert.equal(d.alertCount, 2);
    assert.equal((await alert(joined)).status, 'firing', 'the sender says it fires, and nobody has acknowledged it');
    assert.equal(d.timeline.filter((t: Rec) => t.type === 'escalation_started').length, 1, 'no second escalation');
    // The workflow's escalate action ran for the new alert and did not page: the incident is acknowledged.
    const runs = (await h.ok('GET', '/api/v1/workflows?limit=100', { key: org.key })).data as Rec[];
    const history = (await h.ok('GET', `/api/v1/workflows/${runs[0]?.id}/runs?limit=100`, { key: org.key })).data as Rec[];
    const run = history.find((r) => r.alertId === joined);
    assert.deepEqual(run?.actions.map((a: Rec) => [a.type, a.status, a.detail]).at(-1), ['escalate', 'skipped', 'the incident is acknowledged']);
    // Acknowledging the newcomer changes nothing more; resolving the incident resolves both.
    await act(joined, 'acknowledge');
    await setStatus(incidentId, 'resolved');
    assert.equal((await alert(joined)).status, 'resolved');
  });
});
