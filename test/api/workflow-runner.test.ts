import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';
import { eventually } from '../support/eventually.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const HOUR = 3_600_000;

type Rec = Record<string, any>;

eachStore('workflow runner', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind, { JOB_POLL_MS: '20' }); });
  after(() => h.close());

  let n = 0;
  /** A workflow; the clock moves a second after it so that workflows created one after another run in that order. */
  async function workflow(org: Org, body: Rec): Promise<Rec> {
    n += 1;
    const r = await h.req('POST', '/api/v1/workflows', { key: org.key, body: { name: `Workflow ${n}`, trigger: 'alert.created', ...body } });
    assert.equal(r.status, 201, r.raw);
    h.clock.advance(1000);
    return r.body.data;
  }
  const send = (path: string, payload: Rec): Promise<string> => h.ingestAlert(path, payload);
  const getAlert = async (org: Org, id: string): Promise<Rec> => (await h.ok('GET', `/api/v1/alerts/${id}`, { key: org.key })).data;
  const runs = async (org: Org, workflowId: string): Promise<Rec[]> => (await h.ok('GET', `/api/v1/workflows/${workflowId}/runs?limit=100`, { key: org.key })).data;
  /** The run of a workflow for an alert (and trigger), once recorded with its actions' outcomes. */
  const runFor = (org: Org, workflowId: string, alertId: string, trigger = 'alert.created') =>
    eventually(`a ${trigger} run of ${workflowId} for ${alertId}`, async () =>
      (await runs(org, workflowId)).find((r) => r.alertId === alertId && r.trigger === trigger && (!r.matched || r.actions.length > 0)));
  const runsFor = async (org: Org, workflowId: string, alertId: string) => (await runs(org, workflowId)).filter((r) => r.alertId === alertId);

  async function setup(name = 'Acme') {
    const org = await h.newOrg(name);
    const integ = await h.integration(org);
    return { org, integ };
  }

  it('conditions that do not hold: the run is recorded with matched false and no action runs', async () => {
    const { org, integ } = await setup();
    const wf = await workflow(org, {
      conditions: { all: [{ field: 'labels.env', op: 'eq', value: 'prod' }, { field: 'severity', op: 'in', value: ['critical', 'high'] }] },
      actions: [{ type: 'set_severity', severity: 'critical' }, { type: 'add_labels', labels: { touched: 'yes' } }, { type: 'create_incident' }],
    });
    const dev = await send(integ.path, { title: 'Dev box hot', severity: 'high', labels: { env: 'dev' } });
    const run = await runFor(org, wf.id, dev);
    assert.match(run.id, /^run_/);
    assert.deepEqual(run, {
      id: run.id, alertId: dev, eventId: run.eventId, trigger: 'alert.created', matched: false, actions: [],
      createdAt: iso(h.clock.now()), updatedAt: iso(h.clock.now()),
    });
    const a = await getAlert(org, dev);
    assert.equal(a.severity, 'high');
    assert.deepEqual(a.labels, { env: 'dev' });
    assert.equal(a.incidentId, null);
    assert.equal((await h.req('GET', '/api/v1/incidents', { key: org.key })).body.meta.total, 0);

    // The same workflow on an alert that meets the conditions runs every action.
    const prod = await send(integ.path, { title: 'Prod box hot', severity: 'high', labels: { env: 'prod' } });
    const ran = await runFor(org, wf.id, prod);
    assert.equal(ran.matched, true);
    assert.deepEqual(ran.actions.map((x: Rec) => [x.index, x.type, x.status]), [[0, 'set_severity', 'done'], [1, 'add_labels', 'done'], [2, 'create_incident', 'done']]);
    assert.equal((await runs(org, wf.id)).length, 2);
  });

  it('set_severity and add_labels (with a {{alert.labels.host}} template) change the alert', async () => {
    const { org, integ } = await setup();
    const wf = await workflow(org, {
      actions: [
        { type: 'set_severity', severity: 'critical' },
        { type: 'add_labels', labels: { owner: 'team-{{alert.labels.host}}', paged: 'yes', sev: '{{alert.severity}}', none: '{{alert.labels.nope}}' } },
      ],
    });
    const alertId = await send(integ.path, { title: 'Disk full', severity: 'low', labels: { host: 'db1', env: 'prod' } });
    const run = await runFor(org, wf.id, alertId);
    assert.deepEqual(run.actions[0], { index: 0, type: 'set_severity', status: 'done', detail: 'severity critical', incidentId: null });
    assert.deepEqual({ ...run.actions[1], detail: null }, { index: 1, type: 'add_labels', status: 'done', detail: null, incidentId: null });
    // The stored definition's key order is the store's (PostgreSQL's jsonb reorders keys), so the names are compared as a set.
    assert.deepEqual(String(run.actions[1].detail).replace(/^labels /, '').split(', ').sort(), ['none', 'owner', 'paged', 'sev']);
    const a = await getAlert(org, alertId);
    assert.equal(a.severity, 'critical');
    assert.deepEqual(a.labels, { host: 'db1', env: 'prod', owner: 'team-db1', paged: 'yes', sev: 'critical', none: '' },
      'labels are added to the sender\'s, rendered with the severity the earlier action set');
    assert.equal(a.status, 'firing');
  });

  it('suppress moves a firing alert to suppressed, and a later workflow does not run for it', async () => {
    const { org, integ } = await setup();
    const mute = await workflow(org, { conditions: { field: 'labels.mute', op: 'eq', value: 'yes' }, actions: [{ type: 'suppress' }, { type: 'add_labels', labels: { muted: 'yes' } }] });
    const later = await workflow(org, { actions: [{ type: 'add_labels', labels: { later: 'yes' } }] });
    const muted = await send(integ.path, { title: 'Noisy', severity: 'medium', labels: { mute: 'yes' } });
    const run = await runFor(org, mute.id, muted);
    assert.deepEqual(run.actions.map((x: Rec) => [x.type, x.status]), [['suppress', 'done'], ['add_labels', 'done']]);
    const a = await getAlert(org, muted);
    assert.equal(a.status, 'suppressed');
    assert.equal(a.suppressionId, null, 'no window holds it');
    assert.deepEqual(a.labels, { mute: 'yes', muted: 'yes' });
    // A later alert that the first workflow leaves alone reaches the second: by then the first alert's event is long done.
    const loud = await send(integ.path, { title: 'Loud', severity: 'medium', labels: {} });
    assert.equal((await runFor(org, mute.id, loud)).matched, false);
    await runFor(org, later.id, loud);
    assert.deepEqual(await runsFor(org, later.id, muted), [], 'no run of the later workflow for the suppressed alert');
    assert.equal((await getAlert(org, loud)).labels.later, 'yes');
    assert.equal((await getAlert(org, muted)).labels.later, undefined);

    // Suppressing an alert that is not firing is skipped.
    const acked = await send(integ.path, { title: 'Acked at birth', severity: 'low', status: 'acknowledged', labels: { mute: 'yes' } });
    const skipped = await runFor(org, mute.id, acked);
    assert.deepEqual(skipped.actions[0], { index: 0, type: 'suppress', status: 'skipped', detail: 'the alert is acknowledged', incidentId: null });
    assert.equal((await getAlert(org, acked)).status, 'acknowledged');
  });

  it('an alert stored suppressed by a window runs no alert.created workflow; when the window ends, alert.reopened workflows run for it', async () => {
    const { org, integ } = await setup();
    const created = await workflow(org, { actions: [{ type: 'add_labels', labels: { created: 'yes' } }] });
    const reopened = await workflow(org, { trigger: 'alert.reopened', actions: [{ type: 'add_labels', labels: { reopened: 'yes', host: '{{alert.labels.host}}-again' } }] });
    const start = h.clock.now();
    const win = await h.req('POST', '/api/v1/suppression', {
      key: org.key,
      body: { name: 'db9 maintenance', startsAt: iso(start), endsAt: iso(start + HOUR), matchers: [{ field: 'labels.host', op: 'eq', value: 'db9' }] },
    });
    assert.equal(win.status, 201, win.raw);
    assert.equal(win.body.data.active, true);

    const r = await h.ingest(integ.path, { title: 'db9 down', severity: 'critical', labels: { host: 'db9' } });
    assert.equal(r.body.data.alerts[0].action, 'suppressed', r.raw);
    const held = r.body.data.alerts[0].alertId as string;
    // A later alert outside the window: once its run is there, the suppressed alert's chance has passed.
    const free = await send(integ.path, { title: 'db1 down', severity: 'critical', labels: { host: 'db1' } });
    await runFor(org, created.id, free);
    assert.deepEqual(await runsFor(org, created.id, held), []);
    let a = await getAlert(org, held);
    assert.equal(a.status, 'suppressed');
    assert.equal(a.suppressionId, win.body.data.id);
    assert.equal(a.labels.created, undefined);

    // The window ends.
    h.clock.advance(HOUR + 1);
    await h.c.suppression.sweep(h.clock.now());
    const run = await runFor(org, reopened.id, held, 'alert.reopened');
    assert.equal(run.matched, true);
    assert.deepEqual(run.actions.map((x: Rec) => x.status), ['done']);
    a = await getAlert(org, held);
    assert.equal(a.status, 'firing');
    assert.equal(a.suppressionId, null);
    assert.equal(a.labels.reopened, 'yes');
    assert.equal(a.labels.host, 'db9-again');
    assert.equal(a.labels.created, undefined, 'the alert.created workflow still never ran for it');
    assert.deepEqual(await runsFor(org, created.id, held), []);
    assert.deepEqual(await runsFor(org, reopened.id, free), [], 'the alert that was never suppressed is not reopened');
  });

  it('alert.acknowledged and alert.resolved workflows run on POST /alerts/{id}/acknowledge and /resolve', async () => {
    const { org, integ } = await setup();
    const onAck = await workflow(org, { trigger: 'alert.acknowledged', actions: [{ type: 'add_labels', labels: { acked: '{{alert.status}}' } }] });
    const onResolve = await workflow(org, { trigger: 'alert.resolved', actions: [{ type: 'add_labels', labels: { closed: '{{alert.status}}' } }] });
    const alertId = await send(integ.path, { title: 'CPU', severity: 'high', labels: {} });

    assert.equal((await h.req('POST', `/api/v1/alerts/${alertId}/acknowledge`, { key: org.key })).status, 200);
    const ack = await runFor(org, onAck.id, alertId, 'alert.acknowledged');
    assert.equal(ack.matched, true);
    assert.equal((await getAlert(org, alertId)).labels.acked, 'acknowledged');
    assert.deepEqual(await runsFor(org, onResolve.id, alertId), []);
    // Acknowledging again is a no-op: no new event.
    assert.equal((await h.req('POST', `/api/v1/alerts/${alertId}/acknowledge`, { key: org.key })).status, 200);

    assert.equal((await h.req('POST', `/api/v1/alerts/${alertId}/resolve`, { key: org.key })).status, 200);
    const res = await runFor(org, onResolve.id, alertId, 'alert.resolved');
    assert.equal(res.matched, true);
    assert.notEqual(res.eventId, ack.eventId);
    const a = await getAlert(org, alertId);
    assert.equal(a.status, 'resolved');
    assert.deepEqual(a.labels, { acked: 'acknowledged', closed: 'resolved' });
    assert.equal((await runsFor(org, onAck.id, alertId)).length, 1, 'the acknowledged workflow ran once');
    assert.equal((await runsFor(org, onResolve.id, alertId)).length, 1);

    // A resolved payload from the sender is the same event.
    const other = await send(integ.path, { title: 'Memory', severity: 'high', fingerprint: 'mem' });
    const resolved = await h.ingest(integ.path, { status: 'resolved', fingerprint: 'mem' });
    assert.equal(resolved.body.data.alerts[0].action, 'resolved');
    await runFor(org, onResolve.id, other, 'alert.resolved');
    assert.deepEqual(await runsFor(org, onAck.id, other), []);
  });

  it('a disabled workflow does not run', async () => {
    const { org, integ } = await setup();
    const off = await workflow(org, { enabled: false, actions: [{ type: 'add_labels', labels: { off: 'ran' } }] });
    const later = await workflow(org, { actions: [{ type: 'add_labels', labels: { on: 'ran' } }] });
    const first = await send(integ.path, { title: 'one', severity: 'low' });
    await runFor(org, later.id, first);
    assert.deepEqual(await runs(org, off.id), []);
    assert.deepEqual((await getAlert(org, first)).labels, { on: 'ran' });

    // Disabled after it ran once: it runs no more; enabled again, it runs for new alerts.
    assert.equal((await h.req('POST', `/api/v1/workflows/${later.id}/disable`, { key: org.key })).status, 200);
    const marker = await workflow(org, { actions: [{ type: 'add_labels', labels: { marker: 'ran' } }] });
    const second = await send(integ.path, { title: 'two', severity: 'low' });
    await runFor(org, marker.id, second);
    assert.deepEqual(await runsFor(org, later.id, second), []);
    assert.deepEqual(await runs(org, off.id), []);
    assert.equal((await h.req('POST', `/api/v1/workflows/${off.id}/enable`, { key: org.key })).status, 200);
    const third = await send(integ.path, { title: 'three', severity: 'low' });
    await runFor(org, off.id, third);
    await runFor(org, marker.id, third);
    assert.deepEqual(await runsFor(org, later.id, third), []);
    assert.deepEqual((await getAlert(org, third)).labels, { off: 'ran', marker: 'ran' });
  });

  it('each enabled workflow runs once per event, with two workflows, repeats of the alert and a replayed job', async () => {
    const { org, integ } = await setup();
    const w1 = await workflow(org, { actions: [{ type: 'create_incident', groupBy: ['labels.service'] }] });
    const w2 = await workflow(org, { actions: [{ type: 'add_labels', labels: { seen: 'yes' } }] });
    const alertIds: string[] = [];
    for (let i = 0; i < 5; i++) alertIds.push(await send(integ.path, { title: `Alert ${i}`, severity: 'high', labels: { service: 'svc' } }));
    // Repeats are deduplicated: no new event.
    for (let i = 0; i < 3; i++) assert.equal((await h.ingest(integ.path, { title: 'Alert 0', severity: 'high', labels: { service: 'svc' } })).body.data.alerts[0].action, 'deduplicated');
    for (const id of alertIds) {
      await runFor(org, w1.id, id);
      await runFor(org, w2.id, id);
    }
    // A marker: an alert after all the others; once its runs are there, the earlier events are done.
    const marker = await send(integ.path, { title: 'marker', severity: 'high', labels: { service: 'svc' } });
    await runFor(org, w1.id, marker);
    await runFor(org, w2.id, marker);
    const r1 = await runs(org, w1.id);
    const r2 = await runs(org, w2.id);
    assert.deepEqual(r1.map((r) => r.alertId).sort(), [...alertIds, marker].sort(), 'one run per alert');
    assert.deepEqual(r2.map((r) => r.alertId).sort(), [...alertIds, marker].sort());
    assert.equal(new Set(r1.map((r) => r.eventId)).size, 6);
    assert.deepEqual(r1.map((r) => r.eventId).sort(), r2.map((r) => r.eventId).sort(), 'both workflows ran on the same events');

    // The job of an event run again (a retry after a crash) runs nothing twice.
    const first = r1.find((r) => r.alertId === alertIds[0]) as Rec;
    await h.c.runner.handleEvent({ eventId: first.eventId, orgId: org.id, alertId: alertIds[0] as string, type: 'alert.created', at: h.clock.now() });
    assert.equal((await runs(org, w1.id)).length, 6);
    assert.equal((await runs(org, w2.id)).length, 6);
    const incidents = await h.req('GET', '/api/v1/incidents', { key: org.key });
    assert.equal(incidents.body.meta.total, 1);
    assert.equal(incidents.body.data[0].alertCount, 6);
  });

  it('assign with userId assigns the incident the workflow opened', async () => {
    const { org, integ } = await setup();
    const user = await h.c.users.add(org.id, { email: `assignee-${kind}@acme.test`, name: 'Assignee', role: 'member' });
    const wf = await workflow(org, { actions: [{ type: 'create_incident', groupBy: ['labels.service'] }, { type: 'assign', userId: user.id }] });
    const alertId = await send(integ.path, { title: 'Login errors', severity: 'high', labels: { service: 'auth' } });
    const run = await runFor(org, wf.id, alertId);
    const incidentId = (await getAlert(org, alertId)).incidentId as string;
    assert.deepEqual(run.actions, [
      { index: 0, type: 'create_incident', status: 'done', detail: 'opened incident #1', incidentId },
      { index: 1, type: 'assign', status: 'done', detail: `assigned to ${user.id}`, incidentId: null },
    ]);
    const d = (await h.req('GET', `/api/v1/incidents/${incidentId}`, { key: org.key })).body.data;
    assert.equal(d.assigneeId, user.id);
    assert.deepEqual(d.timeline.map((e: Rec) => e.type), ['opened', 'alert_joined', 'assigned']);
    assert.deepEqual(d.timeline[2].data, { from: null, to: user.id });
    assert.deepEqual(d.timeline[2].actor, { type: 'system', id: null });
  });

  it('assign with a schedule: the on-call now, or skipped with a detail when nobody is on call', async () => {
    const { org, integ } = await setup();
    const user = await h.c.users.add(org.id, { email: `oncall-${kind}@acme.test`, name: 'On Call', role: 'member' });
    const schedule = async (name: string, startsAt: number) => {
      const r = await h.req('POST', '/api/v1/schedules', {
        key: org.key, body: { name, timezone: 'UTC', layers: [{ name: 'L', startsAt: iso(startsAt), rotation: 'daily', users: [user.id] }] },
      });
      assert.equal(r.status, 201, r.raw);
      return r.body.data.id as string;
    };
    const nobody = await schedule('Starts tomorrow', h.clock.now() + 24 * HOUR);
    const staffed = await schedule('Staffed', h.clock.now() - HOUR);
    const empty = await workflow(org, {
      conditions: { field: 'labels.service', op: 'eq', value: 'a' },
      actions: [{ type: 'create_incident', groupBy: ['labels.service'] }, { type: 'assign', scheduleId: nobody }, { type: 'add_labels', labels: { after: 'yes' } }],
    });
    const full = await workflow(org, {
      conditions: { field: 'labels.service', op: 'eq', value: 'b' },
      actions: [{ type: 'create_incident', groupBy: ['labels.service'] }, { type: 'assign', scheduleId: staffed }],
    });

    const a = await send(integ.path, { title: 'A broke', severity: 'high', labels: { service: 'a' } });
    const run = await runFor(org, empty.id, a);
    assert.equal(run.actions[1].type, 'assign');
    assert.equal(run.actions[1].status, 'skipped');
    assert.equal(run.actions[1].detail, `nobody is on call in schedule ${nobody}`);
    assert.equal(run.actions[2].status, 'done', 'the actions after a skipped one still run');
    const alertA = await getAlert(org, a);
    assert.equal(alertA.labels.after, 'yes');
    const incA = (await h.req('GET', `/api/v1/incidents/${alertA.incidentId}`, { key: org.key })).body.data;
    assert.equal(incA.assigneeId, null);
    assert.deepEqual(incA.timeline.map((e: Rec) => e.type), ['opened', 'alert_joined']);

    const b = await send(integ.path, { title: 'B broke', severity: 'high', labels: { service: 'b' } });
    const runB = await runFor(org, full.id, b);
    assert.deepEqual(runB.actions[1], { index: 1, type: 'assign', status: 'done', detail: `assigned to ${user.id}`, incidentId: null });
    const incB = (await h.req('GET', `/api/v1/incidents/${(await getAlert(org, b)).incidentId}`, { key: org.key })).body.data;
    assert.equal(incB.assigneeId, user.id);
    assert.deepEqual(incB.timeline.at(-1).data, { from: null, to: user.id, scheduleId: staffed });
  });
});
