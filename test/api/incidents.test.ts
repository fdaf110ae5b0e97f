import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';
import { eventually } from '../support/eventually.ts';

const iso = (ms: number): string => new Date(ms).toISOString();

type Rec = Record<string, any>;

eachStore('incidents API', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind, { JOB_POLL_MS: '20' }); });
  after(() => h.close());

  let users = 0;
  const addUser = (org: Org) => {
    users += 1;
    return h.c.users.add(org.id, { email: `user${users}-${kind}@acme.test`, name: `User ${users}`, role: 'member' });
  };

  async function workflow(org: Org, body: Rec): Promise<Rec> {
    const r = await h.req('POST', '/api/v1/workflows', { key: org.key, body });
    assert.equal(r.status, 201, r.raw);
    return r.body.data;
  }

  /** An org with an integration and a workflow opening incidents grouped by `labels.service`. */
  async function setup(name = 'Acme') {
    const org = await h.newOrg(name);
    const wf = await workflow(org, {
      name: 'Group by service', trigger: 'alert.created',
      actions: [{ type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.labels.service}}: {{alert.title}}' }],
    });
    const integ = await h.integration(org);
    return { org, wf, integ };
  }

  const send = (path: string, payload: Rec): Promise<string> => h.ingestAlert(path, payload);

  const getAlert = async (org: Org, id: string): Promise<Rec> => (await h.ok('GET', `/api/v1/alerts/${id}`, { key: org.key })).data;
  /** The incident the alert joined, once the workflow has run. */
  const incidentIdOf = (org: Org, alertId: string) =>
    eventually(`an incident for ${alertId}`, async () => (await getAlert(org, alertId)).incidentId ?? undefined) as Promise<string>;
  const getIncident = async (org: Org, id: string): Promise<Rec> => (await h.ok('GET', `/api/v1/incidents/${id}`, { key: org.key })).data;
  const list = (org: Org, query = ''): Promise<Rec> => h.ok('GET', `/api/v1/incidents${query}`, { key: org.key });
  const put = (org: Org, id: string, body: unknown, method = 'PUT') => h.req(method, `/api/v1/incidents/${id}`, { key: org.key, body });
  const runs = async (org: Org, workflowId: string): Promise<Rec[]> => (await h.ok('GET', `/api/v1/workflows/${workflowId}/runs?limit=100`, { key: org.key })).data;
  const ids = (rows: Rec[]) => rows.map((r) => r.id as string).sort();

  it('a create_incident workflow opens incident #1 for the first alert, with the fields of the contract', async () => {
    const { org, wf, integ } = await setup();
    const alertId = await send(integ.path, { title: 'Checkout 5xx', severity: 'high', labels: { service: 'checkout' } });
    const incidentId = await incidentIdOf(org, alertId);
    const d = await getIncident(org, incidentId);
    assert.match(d.id, /^inc_/);
    assert.equal((await getAlert(org, alertId)).incidentNumber, 1, 'the alert detail names its incident by number');
    const { alerts, timeline, ...incident } = d;
    assert.deepEqual(incident, {
      id: incidentId, number: 1, title: 'checkout: Checkout 5xx', severity: 'high', status: 'triggered', assigneeId: null,
      alertCount: 1, clientId: null, workflowId: wf.id, groupKey: 'labels.service=checkout', acknowledgedAt: null, resolvedAt: null, snoozedUntil: null,
      createdAt: iso(h.clock.now()), updatedAt: iso(h.clock.now()),
    });
    assert.deepEqual(alerts.map((a: Rec) => a.id), [alertId]);
    assert.deepEqual(timeline.map((e: Rec) => e.type), ['opened', 'alert_joined']);
    const listed = await list(org);
    assert.equal(listed.meta.total, 1);
    assert.deepEqual(listed.data, [incident]);
  });

  it('numbers incidents 1, 2, … per organization, independently across organizations; different services open different incidents', async () => {
    const a = await setup('A');
    const b = await setup('B');
    // Distinct titles: the same title and source would be one alert (deduplicated).
    const a1 = await incidentIdOf(a.org, await send(a.integ.path, { title: 'x1', severity: 'low', labels: { service: 'one' } }));
    const a2 = await incidentIdOf(a.org, await send(a.integ.path, { title: 'x2', severity: 'low', labels: { service: 'two' } }));
    const b1 = await incidentIdOf(b.org, await send(b.integ.path, { title: 'x1', severity: 'low', labels: { service: 'one' } }));
    const a3 = await incidentIdOf(a.org, await send(a.integ.path, { title: 'x3', severity: 'low', labels: { service: 'three' } }));
    const b2 = await incidentIdOf(b.org, await send(b.integ.path, { title: 'x2', severity: 'low', labels: { service: 'two' } }));
    assert.equal(new Set([a1, a2, a3, b1, b2]).size, 5, 'each service of each organization has its own incident');
    assert.deepEqual([(await getIncident(a.org, a1)).number, (await getIncident(a.org, a2)).number, (await getIncident(a.org, a3)).number], [1, 2, 3]);
    assert.deepEqual([(await getIncident(b.org, b1)).number, (await getIncident(b.org, b2)).number], [1, 2]);
    assert.equal((await list(a.org)).meta.total, 3);
    assert.equal((await list(b.org)).meta.total, 2);
  });

  it('alerts of the same service join one incident: alertCount counts them, severity is the worst of them', async () => {
    const { org, integ } = await setup();
    const first = await send(integ.path, { title: 'Latency up', severity: 'low', labels: { service: 'api' } });
    const incidentId = await incidentIdOf(org, first);
    const second = await send(integ.path, { title: 'Errors up', severity: 'critical', labels: { service: 'api' } });
    assert.equal(await incidentIdOf(org, second), incidentId);
    let d = await getIncident(org, incidentId);
    assert.equal(d.alertCount, 2);
    assert.equal(d.severity, 'critical');
    assert.equal(d.number, 1);
    assert.equal(d.title, 'api: Latency up', 'the title is the first alert\'s');
    // A milder third alert keeps the worst severity.
    const third = await send(integ.path, { title: 'Saturation', severity: 'medium', labels: { service: 'api' } });
    assert.equal(await incidentIdOf(org, third), incidentId);
    d = await getIncident(org, incidentId);
    assert.equal(d.alertCount, 3);
    assert.equal(d.severity, 'critical');
    assert.deepEqual(d.alerts.map((a: Rec) => a.id).sort(), [first, second, third].sort());
    // A repeat of an alert (deduplicated) is no new member.
    const again = await h.ingest(integ.path, { title: 'Errors up', severity: 'critical', labels: { service: 'api' } });
    assert.equal(again.body.data.alerts[0].action, 'deduplicated');
    const other = await send(integ.path, { title: 'Elsewhere', severity: 'info', labels: { service: 'web' } });
    const otherIncident = await incidentIdOf(org, other);
    assert.notEqual(otherIncident, incidentId);
    assert.equal((await getIncident(org, otherIncident)).number, 2);
    assert.equal((await getIncident(org, incidentId)).alertCount, 3);
  });

  it('20 concurrent alerts of one service open exactly one incident with alertCount 20; the database refuses a second open incident of the group', async () => {
    const { org, wf, integ } = await setup();
    const sent = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      h.ingest(integ.path, { title: `Pod crash ${i}`, severity: i === 13 ? 'critical' : 'medium', labels: { service: 'payments' } })));
    for (const r of sent) assert.equal(r.status, 200, r.raw);
    const alertIds = sent.map((r) => r.body.data.alerts[0].alertId as string);
    assert.equal(new Set(alertIds).size, 20);
    const incidentIds = new Set<string>();
    for (const id of alertIds) incidentIds.add(await incidentIdOf(org, id));
    assert.equal(incidentIds.size, 1, 'every alert joined the same incident');
    const [incidentId] = [...incidentIds] as [string];
    const listed = await list(org);
    assert.equal(listed.meta.total, 1);
    const d = await getIncident(org, incidentId);
    assert.equal(d.number, 1);
    assert.equal(d.alertCount, 20);
    assert.equal(d.severity, 'critical');
    assert.equal(d.alerts.length, 20);
    assert.equal(d.timeline.filter((e: Rec) => e.type === 'opened').length, 1);
    assert.equal(d.timeline.filter((e: Rec) => e.type === 'alert_joined').length, 20);
    const wfRuns = await runs(org, wf.id);
    assert.equal(wfRuns.length, 20);
    assert.equal(wfRuns.filter((r) => r.actions[0]?.detail === 'opened incident #1').length, 1);
    assert.equal(wfRuns.filter((r) => r.actions[0]?.detail === 'joined incident #1').length, 19);

    // The invariant is the database's: a second open incident of the same workflow and group key is refused.
    const row = await h.c.store.db.selectFrom('incidents').selectAll().where('id', '=', incidentId).executeTakeFirstOrThrow();
    await assert.rejects(h.c.store.db.insertInto('incidents').values({ ...row, id: 'inc_duplicate', number: 99, status: 'acknowledged' }).execute());
    // … while a resolved one of the same group may sit beside it.
    await h.c.store.db.insertInto('incidents').values({ ...row, id: 'inc_old', number: 98, status: 'resolved' }).execute();
  });

  it('set_severity after create_incident: the incident shows the highest severity of its alerts, up and down', async () => {
    const org = await h.newOrg();
    const integ = await h.integration(org);
    await workflow(org, {
      name: 'Escalate db', trigger: 'alert.created', conditions: { field: 'labels.service', op: 'eq', value: 'db' },
      actions: [{ type: 'create_incident', groupBy: ['labels.service'] }, { type: 'set_severity', severity: 'critical' }],
    });
    await workflow(org, {
      name: 'Calm web', trigger: 'alert.created', conditions: { field: 'labels.service', op: 'eq', value: 'web' },
      actions: [{ type: 'create_incident', groupBy: ['labels.service'] }, { type: 'set_severity', severity: 'info' }],
    });
    const db = await send(integ.path, { title: 'Replica lag', severity: 'low', labels: { service: 'db' } });
    const dbIncident = await getIncident(org, await incidentIdOf(org, db));
    assert.equal((await getAlert(org, db)).severity, 'critical');
    assert.equal(dbIncident.severity, 'critical', 'the incident\'s only alert is critical');
    const web = await send(integ.path, { title: 'Slow pages', severity: 'high', labels: { service: 'web' } });
    const webIncident = await getIncident(org, await incidentIdOf(org, web));
    assert.equal((await getAlert(org, web)).severity, 'info');
    assert.equal(webIncident.severity, 'info', 'the incident\'s only alert is info');
  });

  it('an alert that two create_incident workflows group stays in the first incident: every incident counts exactly the alerts it lists, and none stays open once they are resolved',
    async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      await workflow(org, { name: 'By service', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: ['labels.service'] }] });
      h.clock.advance(1000);
      const second = await workflow(org, { name: 'By host', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: ['labels.host'] }] });
      const alertId = await send(integ.path, { title: 'Disk full', severity: 'high', labels: { service: 'db', host: 'db1' } });
      await eventually('both runs', async () => ((await runs(org, second.id)).some((r) => r.alertId === alertId) ? true : undefined));
      const all = (await list(org)).data as Rec[];
      for (const i of all) {
        const d = await getIncident(org, i.id);
        assert.equal(d.alertCount, d.alerts.length, `incident #${d.number} counts ${d.alertCount} alerts but lists ${d.alerts.length}`);
      }
      assert.equal((await h.req('POST', `/api/v1/alerts/${alertId}/resolve`, { key: org.key })).status, 200);
      await eventually('every incident resolved', async () => ((await list(org, '?status=triggered,acknowledged')).meta.total === 0 ? true : undefined), 5_000);
    });

  it('filters: status (comma list), assigneeId and clientId (the client whose slug is labels.client)', async () => {
    const { org, integ } = await setup();
    const client = await h.req('POST', '/api/v1/clients', { key: org.key, body: { name: 'Globex', slug: 'globex' } });
    assert.equal(client.status, 201, client.raw);
    const clientId = client.body.data.id as string;
    const user = await addUser(org);
    const i1 = await incidentIdOf(org, await send(integ.path, { title: 'a', severity: 'high', labels: { service: 's1', client: 'globex' } }));
    const i2 = await incidentIdOf(org, await send(integ.path, { title: 'b', severity: 'high', labels: { service: 's2' } }));
    const i3 = await incidentIdOf(org, await send(integ.path, { title: 'c', severity: 'high', labels: { service: 's3', client: 'nobody' } }));
    assert.equal((await getIncident(org, i1)).clientId, clientId);
    assert.equal((await getIncident(org, i3)).clientId, null);
    assert.equal((await put(org, i2, { status: 'acknowledged' })).status, 200);
    assert.equal((await put(org, i3, { assigneeId: user.id })).status, 200);

    assert.deepEqual(ids((await list(org, '?status=triggered')).data), [i1, i3].sort());
    assert.deepEqual(ids((await list(org, '?status=acknowledged')).data), [i2]);
    assert.deepEqual(ids((await list(org, '?status=resolved')).data), []);
    const both = await list(org, '?status=triggered,acknowledged');
    assert.deepEqual(ids(both.data), [i1, i2, i3].sort());
    assert.equal(both.meta.total, 3);
    assert.deepEqual(ids((await list(org, `?assigneeId=${user.id}`)).data), [i3]);
    assert.deepEqual(ids((await list(org, `?clientId=${clientId}`)).data), [i1]);
    const combined = await list(org, `?status=acknowledged&clientId=${clientId}`);
    assert.deepEqual(combined.data, []);
    assert.equal(combined.meta.total, 0);
    const bad = await h.req('GET', '/api/v1/incidents?status=open', { key: org.key });
    assert.equal(bad.status, 400, bad.raw);
    assert.equal(bad.body.code, 'VALIDATION_ERROR');
  });

  it('GET /incidents/{id} shows its alerts and a timeline: opened, alert_joined, assigned, status_changed', async () => {
    const { org, wf, integ } = await setup();
    const user = await addUser(org);
    const first = await send(integ.path, { title: 'Queue depth', severity: 'medium', labels: { service: 'jobs' } });
    const incidentId = await incidentIdOf(org, first);
    const second = await send(integ.path, { title: 'Queue age', severity: 'high', labels: { service: 'jobs' } });
    assert.equal(await incidentIdOf(org, second), incidentId);
    h.clock.advance(1000);
    assert.equal((await put(org, incidentId, { assigneeId: user.id })).status, 200);
    h.clock.advance(1000);
    assert.equal((await put(org, incidentId, { status: 'acknowledged' })).status, 200);
    const d = await getIncident(org, incidentId);
    assert.deepEqual(d.alerts.map((a: Rec) => a.id).sort(), [first, second].sort());
    const a = d.alerts.find((x: Rec) => x.id === second);
    assert.deepEqual(Object.keys(a).sort(), ['createdAt', 'fingerprint', 'id', 'severity', 'status', 'title']);
    assert.equal(a.title, 'Queue age');
    assert.equal(a.status, 'acknowledged', 'acknowledging the incident acknowledged its firing alerts');
    assert.deepEqual(d.timeline.map((e: Rec) => e.type), ['opened', 'alert_joined', 'alert_joined', 'assigned', 'status_changed']);
    const [opened, j1, j2, assigned, changed] = d.timeline;
    assert.deepEqual(opened.data, { workflowId: wf.id, groupKey: 'labels.service=jobs' });
    assert.deepEqual(opened.actor, { type: 'system', id: null });
    assert.deepEqual([j1.data.alertId, j2.data.alertId], [first, second]);
    assert.deepEqual(assigned.data, { from: null, to: user.id });
    assert.equal(assigned.actor.type, 'api_key');
    assert.deepEqual(changed.data, { from: 'triggered', to: 'acknowledged' });
    assert.equal(changed.createdAt, iso(h.clock.now()));
    const missing = await h.req('GET', '/api/v1/incidents/inc_doesNotExist', { key: org.key });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.code, 'NOT_FOUND');
  });

  it('PUT moves triggered → acknowledged → triggered → resolved; a resolved incident is final (409)', async () => {
    const { org, integ } = await setup();
    const incidentId = await incidentIdOf(org, await send(integ.path, { title: 't', severity: 'low', labels: { service: 'x' } }));
    h.clock.advance(60_000);
    const ackAt = h.clock.now();
    let r = await put(org, incidentId, { status: 'acknowledged' });
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.data.status, 'acknowledged');
    assert.equal(r.body.data.acknowledgedAt, iso(ackAt));
    assert.equal(r.body.data.updatedAt, iso(ackAt));
    assert.equal(r.body.data.resolvedAt, null);
    h.clock.advance(60_000);
    r = await put(org, incidentId, { status: 'acknowledged' });
    assert.equal(r.status, 200, 'the same status again is a no-op');
    assert.equal(r.body.data.acknowledgedAt, iso(ackAt));
    r = await put(org, incidentId, { status: 'triggered' });
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.data.status, 'triggered');
    assert.equal(r.body.data.acknowledgedAt, null);
    h.clock.advance(60_000);
    r = await put(org, incidentId, { status: 'resolved' }, 'PATCH');
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.data.status, 'resolved');
    assert.equal(r.body.data.resolvedAt, iso(h.clock.now()));
    for (const status of ['triggered', 'acknowledged']) {
      for (const method of ['PUT', 'PATCH']) {
        const no = await put(org, incidentId, { status }, method);
        assert.equal(no.status, 409, `${method} resolved → ${status}: ${no.raw}`);
        assert.equal(no.body.code, 'CONFLICT');
      }
    }
    const d = await getIncident(org, incidentId);
    assert.equal(d.status, 'resolved');
    assert.deepEqual(d.timeline.filter((e: Rec) => e.type === 'status_changed').map((e: Rec) => `${e.data.from}→${e.data.to}`),
      ['triggered→acknowledged', 'acknowledged→triggered', 'triggered→resolved']);
    // Bodies: empty, unknown fields and unknown statuses are refused.
    for (const body of [{}, { status: 'open' }, { title: 'x' }, { assigneeId: 5 }]) {
      const bad = await put(org, incidentId, body);
      assert.equal(bad.status, 400, `${JSON.stringify(body)}: ${bad.raw}`);
      assert.equal(bad.body.code, 'VALIDATION_ERROR');
    }
  });

  it('assigneeId must be a user of the organization (400 otherwise); null unassigns', async () => {
    const { org, integ } = await setup();
    const other = await h.newOrg('Other');
    const stranger = await addUser(other);
    const user = await addUser(org);
    const incidentId = await incidentIdOf(org, await send(integ.path, { title: 't', severity: 'low', labels: { service: 'x' } }));
    for (const assigneeId of [stranger.id, other.ownerId, 'usr_doesNotExist']) {
      const r = await put(org, incidentId, { assigneeId });
      assert.equal(r.status, 400, r.raw);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(r.body.details.map((d: Rec) => d.path), ['/assigneeId']);
    }
    // A refused body changes nothing, not even the status given with it.
    const mixed = await put(org, incidentId, { status: 'acknowledged', assigneeId: stranger.id });
    assert.equal(mixed.status, 400);
    assert.equal((await getIncident(org, incidentId)).status, 'triggered');

    let r = await put(org, incidentId, { assigneeId: user.id });
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.data.assigneeId, user.id);
    r = await put(org, incidentId, { assigneeId: org.ownerId }, 'PATCH');
    assert.equal(r.body.data.assigneeId, org.ownerId);
    r = await put(org, incidentId, { assigneeId: null });
    assert.equal(r.status, 200, r.raw);
    assert.equal(r.body.data.assigneeId, null);
    assert.equal(r.body.data.status, 'triggered', 'fields left out stay as they are');
    const d = await getIncident(org, incidentId);
    assert.equal(d.assigneeId, null);
    assert.deepEqual(d.timeline.filter((e: Rec) => e.type === 'assigned').map((e: Rec) => e.data),
      [{ from: null, to: user.id }, { from: user.id, to: org.ownerId }, { from: org.ownerId, to: null }]);
  });

  it('another organization\'s incident is 404 like a missing one, on GET, PUT and PATCH, and is left untouched', async () => {
    const theirs = await setup('Theirs');
    const incidentId = await incidentIdOf(theirs.org, await send(theirs.integ.path, { title: 't', severity: 'low', labels: { service: 'x' } }));
    const mine = await h.newOrg('Mine');
    for (const [method, body] of [['GET', undefined], ['PUT', { status: 'resolved' }], ['PATCH', { assigneeId: null }]] as const) {
      const foreign = await h.req(method, `/api/v1/incidents/${incidentId}`, { key: mine.key, body });
      const missing = await h.req(method, '/api/v1/incidents/inc_doesNotExist', { key: mine.key, body });
      assert.equal(foreign.status, 404, `${method}: ${foreign.raw}`);
      assert.equal(foreign.raw, missing.raw);
    }
    assert.equal((await list(mine)).meta.total, 0);
    assert.equal((await getIncident(theirs.org, incidentId)).status, 'triggered');
  });

  it('403 without incidents:read (GET) or incidents:write (PUT/PATCH), naming the scope', async () => {
    const { org, integ } = await setup();
    const incidentId = await incidentIdOf(org, await send(integ.path, { title: 't', severity: 'low', labels: { service: 'x' } }));
    const key = async (scopes: string[]) => {
      const r = await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'k', scopes } });
      assert.equal(r.status, 201, r.raw);
      return r.body.data.key as string;
    };
    const readOnly = await key(['incidents:read']);
    const writeOnly = await key(['incidents:write']);
    for (const method of ['PUT', 'PATCH']) {
      const r = await h.req(method, `/api/v1/incidents/${incidentId}`, { key: readOnly, body: { status: 'acknowledged' } });
      assert.equal(r.status, 403, r.raw);
      assert.equal(r.body.code, 'FORBIDDEN');
      assert.match(r.body.error, /incidents:write/);
    }
    for (const url of ['/api/v1/incidents', `/api/v1/incidents/${incidentId}`]) {
      const r = await h.req('GET', url, { key: writeOnly });
      assert.equal(r.status, 403, r.raw);
      assert.match(r.body.error, /incidents:read/);
      assert.equal((await h.req('GET', url, { key: readOnly })).status, 200);
    }
    assert.equal((await getIncident(org, incidentId)).status, 'triggered');
    const ok = await h.req('PUT', `/api/v1/incidents/${incidentId}`, { key: writeOnly, body: { status: 'acknowledged' } });
    assert.equal(ok.status, 200, ok.raw);
  });

  it('resolves by itself once every alert is resolved (API or resolved payload), not while one is open; a new alert then opens incident #2', async () => {
    const { org, integ } = await setup();
    // Marks the processing of each alert.resolved event: it runs after the incident has followed its alert.
    const marker = await workflow(org, { name: 'marker', trigger: 'alert.resolved', actions: [{ type: 'add_labels', labels: { seen: 'resolved' } }] });
    const resolvedRun = (alertId: string) =>
      eventually(`the alert.resolved run of ${alertId}`, async () => (await runs(org, marker.id)).find((r) => r.alertId === alertId));

    const first = await send(integ.path, { title: 'Disk full', severity: 'high', fingerprint: 'disk-1', labels: { service: 'storage' } });
    const incidentId = await incidentIdOf(org, first);
    const second = await send(integ.path, { title: 'Disk slow', severity: 'medium', fingerprint: 'disk-2', labels: { service: 'storage' } });
    assert.equal(await incidentIdOf(org, second), incidentId);

    h.clock.advance(1000);
    const r = await h.req('POST', `/api/v1/alerts/${first}/resolve`, { key: org.key });
    assert.equal(r.status, 200, r.raw);
    await resolvedRun(first);
    let d = await getIncident(org, incidentId);
    assert.equal(d.status, 'triggered', 'one alert is still open');
    assert.equal(d.resolvedAt, null);

    // An acknowledged alert is still open: the incident, none of whose alerts fires any more, is acknowledged.
    assert.equal((await h.req('POST', `/api/v1/alerts/${second}/acknowledge`, { key: org.key })).status, 200);
    assert.equal((await getIncident(org, incidentId)).status, 'acknowledged');
    h.clock.advance(1000);
    const resolved = await h.ingest(integ.path, { status: 'resolved', fingerprint: 'disk-2' });
    assert.equal(resolved.body.data.alerts[0].action, 'resolved', resolved.raw);
    await resolvedRun(second);
    d = await getIncident(org, incidentId);
    assert.equal(d.status, 'resolved');
    assert.equal(d.resolvedAt, iso(h.clock.now()));
    const last = d.timeline.filter((t: Rec) => t.type === 'status_changed').at(-1);
    assert.deepEqual(last.data, { from: 'acknowledged', to: 'resolved', reason: 'alerts_resolved' });
    assert.deepEqual(last.actor, { type: 'integration', id: integ.id });

    // Resolved stays resolved: a new alert of the group opens a new incident.
    const third = await send(integ.path, { title: 'Disk full', severity: 'low', fingerprint: 'disk-1', labels: { service: 'storage' } });
    assert.notEqual(third, first, 'a new alert, not the resolved one');
    const next = await incidentIdOf(org, third);
    assert.notEqual(next, incidentId);
    const n = await getIncident(org, next);
    assert.equal(n.number, 2);
    assert.equal(n.status, 'triggered');
    assert.equal(n.alertCount, 1);
    assert.equal(n.severity, 'low');
    const old = await getIncident(org, incidentId);
    assert.equal(old.status, 'resolved');
    assert.equal(old.alertCount, 2);
    assert.deepEqual(ids((await list(org, '?status=triggered,acknowledged')).data), [next]);
  });

  it('an incident whose only alert was resolved through the API resolves, with no workflow of trigger alert.resolved', async () => {
    const { org, integ } = await setup();
    const alertId = await send(integ.path, { title: 'Lonely', severity: 'info', labels: { service: 'solo' } });
    const incidentId = await incidentIdOf(org, alertId);
    assert.equal((await h.req('POST', `/api/v1/alerts/${alertId}/resolve`, { key: org.key })).status, 200);
    const d = await eventually('the incident to resolve', async () => {
      const x = await getIncident(org, incidentId);
      return x.status === 'resolved' ? x : undefined;
    });
    assert.equal(d.resolvedAt, iso(h.clock.now()));
  });
});
