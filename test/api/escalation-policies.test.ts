import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { addPerson } from '../support/sessions.ts';
import { startHttpSink, type HttpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

// A policy "minute" is 20 ms here: delays of 1–150 "minutes" run in milliseconds to 3 seconds.
const MINUTE_MS = 20;

eachStore('escalation policies', { together: true }, (kind) => {
  let h: Harness;
  let web: HttpSink;
  before(async () => {
    h = await startHarness(kind, { OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '50', ESCALATION_MINUTE_MS: String(MINUTE_MS) });
    web = await startHttpSink();
  });
  after(async () => {
    await h.close();
    await web.close();
  });

  const emailStep = (delayMinutes = 5) => ({ delayMinutes, targets: [{ type: 'channel', channel: 'email', target: { to: 'ops@acme.test' } }] });
  const create = async (org: Org, body: Record<string, unknown>) => (await h.ok('POST', '/api/v1/escalation-policies', { key: org.key, body }, 201)).data as Record<string, any>;

  it('creates, reads, lists, updates and deletes a policy, each change audited', async () => {
    const org = await h.newOrg();
    const steps = [
      { delayMinutes: 5, targets: [{ type: 'user', id: org.ownerId }] },
      { delayMinutes: 15, targets: [{ type: 'channel', channel: 'slack', target: { webhookUrl: 'https://hooks.slack.com/services/T/B/x' } }, { type: 'channel', channel: 'ntfy', target: { serverUrl: 'https://ntfy.example.com', topic: 'ops', token: 'tk' } }] },
    ];
    const p = await create(org, { name: 'Primary', steps });
    assert.match(p.id, /^esp_/);
    // The ntfy token is a secret: never shown, and kept when sent back masked.
    const shown = structuredClone(steps);
    (shown[1]!.targets[1] as unknown as { target: Record<string, string> }).target.token = '********';
    assert.deepEqual({ name: p.name, steps: p.steps, repeat: p.repeat }, { name: 'Primary', steps: shown, repeat: 0 });
    const stored = await h.c.store.db.selectFrom('escalation_policies').select('steps').where('id', '=', p.id).executeTakeFirstOrThrow();
    assert.ok(JSON.stringify(h.c.store.readJson(stored.steps)).includes('"token":"tk"'), 'stored in clear for the sends');
    assert.deepEqual((await h.ok('GET', `/api/v1/escalation-policies/${p.id}`, { key: org.key })).data, p);
    const list = await h.ok('GET', '/api/v1/escalation-policies', { key: org.key });
    assert.deepEqual(list.data, [p]);
    assert.equal(list.meta.total, 1);
    const patched = (await h.ok('PATCH', `/api/v1/escalation-policies/${p.id}`, { key: org.key, body: { repeat: 2, name: 'Primary on-call' } })).data;
    assert.equal(patched.repeat, 2);
    assert.equal(patched.name, 'Primary on-call');
    assert.deepEqual(patched.steps, shown);
    const resent = (await h.ok('PATCH', `/api/v1/escalation-policies/${p.id}`, { key: org.key, body: { steps: p.steps } })).data;
    assert.deepEqual(resent.steps, shown);
    const kept = await h.c.store.db.selectFrom('escalation_policies').select('steps').where('id', '=', p.id).executeTakeFirstOrThrow();
    assert.ok(JSON.stringify(h.c.store.readJson(kept.steps)).includes('"token":"tk"'), 'the mask sent back kept the stored token');
    const moved = structuredClone(p.steps);
    moved[1].targets[1].target.topic = 'elsewhere';
    const refused = await h.req('PATCH', `/api/v1/escalation-policies/${p.id}`, { key: org.key, body: { steps: moved } });
    assert.equal(refused.status, 400, refused.raw);
    assert.equal(refused.body.details[0].path, '/steps/1/targets/1/target/token', 'the token does not follow the target elsewhere');
    assert.equal((await h.req('DELETE', `/api/v1/escalation-policies/${p.id}`, { key: org.key })).status, 204);
    assert.equal((await h.req('GET', `/api/v1/escalation-policies/${p.id}`, { key: org.key })).status, 404);
    for (const [action, times] of [['escalation_policy.created', 1], ['escalation_policy.updated', 2], ['escalation_policy.deleted', 1]] as const) {
      const events = (await h.ok('GET', `/api/v1/audit-log?action=${action}`, { key: org.key })).data as Array<Record<string, any>>;
      assert.equal(events.length, times, action);
      assert.equal(events[0]!.target.id, p.id);
    }
  });

  it('refuses invalid policies naming the path, and creates nothing', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg('Other');
    const theirSchedule = await h.ok('POST', '/api/v1/schedules', { key: other.key, body: { name: 'Theirs', layers: [{ name: 'L', startsAt: '2026-11-21T00:00:00.000Z', rotation: 'daily', users: [other.ownerId] }] } }, 201);
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ steps: [emailStep()] }, '/name'],
      [{ name: 'x', steps: [] }, '/steps'],
      [{ name: 'x', steps: Array.from({ length: 11 }, () => emailStep()) }, '/steps'],
      [{ name: 'x', steps: [emailStep(1441)] }, '/steps/0/delayMinutes'],
      [{ name: 'x', steps: [emailStep()], repeat: 6 }, '/repeat'],
      [{ name: 'x', steps: [{ delayMinutes: 0, targets: [] }] }, '/steps/0/targets'],
      [{ name: 'x', steps: [{ delayMinutes: 0, targets: [{ type: 'user', id: other.ownerId }] }] }, '/steps/0/targets/0/id'],
      [{ name: 'x', steps: [{ delayMinutes: 0, targets: [{ type: 'schedule', id: theirSchedule.data.id }] }] }, '/steps/0/targets/0/id'],
      [{ name: 'x', steps: [{ delayMinutes: 0, targets: [{ type: 'channel', channel: 'slack', target: { url: 'https://x.test' } }] }] }, '/steps/0/targets/0/target'],
      [{ name: 'x', steps: [{ delayMinutes: 0, targets: [{ type: 'channel', channel: 'ntfy', target: { serverUrl: 'ftp://x.test', topic: 'a' } }] }] }, '/steps/0/targets/0/target'],
    ];
    for (const [body, path] of bad) {
      const r = await h.req('POST', '/api/v1/escalation-policies', { key: org.key, body });
      assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 120)}: ${r.raw}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.ok(r.body.details.some((d: { path: string }) => d.path.startsWith(path)), `${path} in ${r.raw}`);
    }
    assert.equal((await h.ok('GET', '/api/v1/escalation-policies', { key: org.key })).meta.total, 0);
  });

  it('scopes: escalations:read reads but cannot write', async () => {
    const org = await h.newOrg();
    const key = (await h.ok('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'ro', scopes: ['escalations:read'] } }, 201)).data.key as string;
    assert.equal((await h.req('GET', '/api/v1/escalation-policies', { key })).status, 200);
    const r = await h.req('POST', '/api/v1/escalation-policies', { key, body: { name: 'x', steps: [emailStep()] } });
    assert.equal(r.status, 403);
  });

  it('a policy a workflow uses cannot be deleted (409 naming it); workflows must name their own policies', async () => {
    const org = await h.newOrg();
    const other = await h.newOrg('Other');
    const p = await create(org, { name: 'P', steps: [emailStep()] });
    const theirs = await create(other, { name: 'T', steps: [emailStep()] });
    const wf = await h.ok('POST', '/api/v1/workflows', { key: org.key, body: { name: 'Page', trigger: 'alert.created', actions: [{ type: 'create_incident' }, { type: 'escalate', policyId: p.id }] } }, 201);
    assert.deepEqual(wf.data.actions[1], { type: 'escalate', policyId: p.id });
    const refused = await h.req('DELETE', `/api/v1/escalation-policies/${p.id}`, { key: org.key });
    assert.equal(refused.status, 409);
    assert.match(refused.body.error, /"Page"/);
    const foreign = await h.req('POST', '/api/v1/workflows', { key: org.key, body: { name: 'x', trigger: 'alert.created', actions: [{ type: 'create_incident', escalationPolicyId: theirs.id }, { type: 'escalate', policyId: theirs.id }] } });
    assert.equal(foreign.status, 400);
    assert.deepEqual(foreign.body.details.map((d: { path: string }) => d.path).sort(), ['/actions/0/escalationPolicyId', '/actions/1/policyId']);
    const orphan = await h.req('POST', '/api/v1/workflows', { key: org.key, body: { name: 'x', trigger: 'alert.created', actions: [{ type: 'escalate', policyId: p.id }] } });
    assert.equal(orphan.status, 400);
    assert.equal(orphan.body.details[0].path, '/actions/0/type');
    await h.ok('DELETE', `/api/v1/workflows/${wf.data.id}`, { key: org.key }, 204);
    assert.equal((await h.req('DELETE', `/api/v1/escalation-policies/${p.id}`, { key: org.key })).status, 204);
  });

  /** An org whose alerts open an incident escalating with `steps`; returns a function that fires one alert and gives its incident. */
  async function escalating(steps: unknown[], repeat = 0) {
    const org = await h.newOrg();
    const p = await create(org, { name: 'Policy', steps, repeat });
    await h.ok('POST', '/api/v1/workflows', { key: org.key, body: { name: 'Page', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: ['title'], escalationPolicyId: p.id }] } }, 201);
    const integ = await h.integration(org);
    let n = 0;
    const fire = async () => {
      n += 1;
      const alertId = await h.ingestAlert(integ.path, { title: `Disk full ${n}`, severity: 'critical' });
      const alert = await eventually('the incident', async () => (await h.ok('GET', `/api/v1/alerts/${alertId}`, { key: org.key })).data.incidentId ?? undefined);
      return { alertId, incidentId: alert as string };
    };
    return { org, policy: p, fire };
  }
  const incident = async (org: Org, id: string) => (await h.ok('GET', `/api/v1/incidents/${id}`, { key: org.key })).data as Record<string, any>;
  const log = async (org: Org, alertId: string) => (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications?limit=100`, { key: org.key })).data as Array<Record<string, any>>;
  const hitsOf = (path: string) => web.hits.filter((x) => x.path === path);

  it('runs its steps in order, once each, and records each in the timeline and the delivery log', async () => {
    const path = `/hook-${h.kind}-run`;
    const { org, fire } = await escalating([
      { delayMinutes: 1, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}${path}/1` } }] },
      { delayMinutes: 1, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}${path}/2` } }] },
    ], 1);
    const { alertId, incidentId } = await fire();
    await eventually('two rounds of two steps', () => (hitsOf(`${path}/1`).length === 2 && hitsOf(`${path}/2`).length === 2 ? true : undefined));
    const entries = await eventually('four sent pages', async () => {
      const l = (await log(org, alertId)).filter((e) => e.source === 'escalation');
      return l.length === 4 && l.every((e) => e.status === 'sent') ? l : undefined;
    });
    assert.deepEqual(entries.map((e) => e.step).sort(), [1, 1, 2, 2]);
    assert.ok(entries.every((e) => e.workflowId === null && e.actionIndex === null && e.recipientId === null && e.channel === 'webhook'));
    const body = JSON.parse(hitsOf(`${path}/1`)[0]!.body.toString());
    assert.match(body.acknowledgeUrl, /^http:\/\/alertflow\.test\/links\//);
    const timeline = (await incident(org, incidentId)).timeline as Array<Record<string, any>>;
    const steps = timeline.filter((t) => t.type === 'escalation_step');
    assert.deepEqual(steps.map((t) => [t.data.round, t.data.step]), [[1, 1], [1, 2], [2, 1], [2, 2]]);
    assert.equal(steps[3]!.data.last, true);
    assert.equal(timeline.filter((t) => t.type === 'escalation_started').length, 1);
    const row = await h.c.store.db.selectFrom('escalations').selectAll().where('incident_id', '=', incidentId).executeTakeFirstOrThrow();
    assert.equal(row.status, 'done');
    // Nothing more fires afterwards.
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(hitsOf(`${path}/1`).length + hitsOf(`${path}/2`).length, 4);
  });

  it('acknowledging the incident stops it at once; reassigning restarts it with the new assignee paged in step 1', async () => {
    const path = `/hook-${h.kind}-ack`;
    const { org, fire } = await escalating([
      { delayMinutes: 100, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}${path}/1` } }] },
      { delayMinutes: 1, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}${path}/2` } }] },
    ]);
    const first = await fire();
    await eventually('step 1', () => (hitsOf(`${path}/1`).length === 1 ? true : undefined));
    await h.ok('PATCH', `/api/v1/incidents/${first.incidentId}`, { key: org.key, body: { status: 'acknowledged' } });
    const stopped = await h.c.store.db.selectFrom('escalations').selectAll().where('incident_id', '=', first.incidentId).executeTakeFirstOrThrow();
    assert.equal(stopped.status, 'stopped');
    assert.equal(stopped.stop_reason, 'acknowledged');
    await new Promise((r) => setTimeout(r, 100 * MINUTE_MS + 700));
    assert.equal(hitsOf(`${path}/2`).length, 0, 'no step 2 after the acknowledgement');
    const timeline = (await incident(org, first.incidentId)).timeline as Array<Record<string, any>>;
    assert.deepEqual(timeline.filter((t) => t.type === 'escalation_stopped').map((t) => t.data.reason), ['acknowledged']);

    // A second incident, reassigned while escalating: the old escalation stops, a new one pages the assignee first.
    const second = await fire();
    await eventually('step 1 of the second', () => (hitsOf(`${path}/1`).length === 2 ? true : undefined));
    const member = await addPerson(h, org.id, `sre-${h.kind}@acme.test`, 'a long enough password');
    await h.ok('PATCH', `/api/v1/incidents/${second.incidentId}`, { key: org.key, body: { assigneeId: member } });
    const pages = await eventually('the assignee paged', async () => {
      const l = (await log(org, second.alertId)).filter((e) => e.recipientId === member);
      return l.length === 1 ? l : undefined;
    });
    assert.equal(pages[0]!.channel, 'email');
    assert.equal(pages[0]!.target, `sre-${h.kind}@acme.test`);
    assert.equal(pages[0]!.step, 1);
    const rows = await h.c.store.db.selectFrom('escalations').select(['status', 'stop_reason', 'assignee_id']).where('incident_id', '=', second.incidentId).orderBy('started_at').execute();
    assert.deepEqual(rows.map((r) => r.status).sort(), ['active', 'stopped']);
    assert.ok(rows.some((r) => r.stop_reason === 'reassigned') && rows.some((r) => r.assignee_id === member));
    await eventually('the restart pages step 1 again', () => (hitsOf(`${path}/1`).length === 3 ? true : undefined));
    // Resolving stops the restarted one too.
    await h.ok('PATCH', `/api/v1/incidents/${second.incidentId}`, { key: org.key, body: { status: 'resolved' } });
    const after = await h.c.store.db.selectFrom('escalations').select('status').where('incident_id', '=', second.incidentId).execute();
    assert.ok(after.every((r) => r.status === 'stopped'));
  });

  it('the acknowledge link: GET confirms without acting, POST acts once as the recipient, reused or expired links say so', async () => {
    const { org, fire } = await escalating([
      { delayMinutes: 100, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}/hook-${h.kind}-link` } }] },
      { delayMinutes: 0, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}/hook-${h.kind}-link2` } }] },
    ]);
    const { incidentId } = await fire();
    const hit = await eventually('the page', () => web.hits.find((x) => x.path === `/hook-${h.kind}-link`));
    const ackUrl = new URL(JSON.parse(hit.body.toString()).acknowledgeUrl as string);
    const inject = (method: 'GET' | 'POST', url: string) => h.app.inject({ method, url, ...(method === 'POST' && { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' }) });

    const shown = await inject('GET', ackUrl.pathname);
    assert.equal(shown.statusCode, 200);
    assert.match(String(shown.headers['content-type']), /^text\/html/);
    assert.match(String(shown.headers['content-security-policy']), /script-src 'self'; style-src 'self'/);
    assert.equal(shown.headers['cache-control'], 'no-store');
    assert.match(shown.body, /<form method="post"><button type="submit">Acknowledge<\/button><\/form>/);
    assert.doesNotMatch(shown.body, /<script|<style|style=/i);
    assert.equal((await incident(org, incidentId)).status, 'triggered', 'GET changes nothing');

    const done = await inject('POST', ackUrl.pathname);
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /acknowledged/);
    // It looks like the dashboard (its own stylesheet, its sign-in card) and offers what comes next: the page's
    // resolve link, and the incident.
    const resolveUrl = new URL(JSON.parse(hit.body.toString()).resolveUrl as string);
    assert.match(done.body, /<link rel="stylesheet" href="\/assets\/[\w.-]+\.css">/);
    assert.match(done.body, /<main class="centered"><div class="card">/);
    assert.ok(done.body.includes(`<form method="post" action="${resolveUrl.pathname}"><button type="submit">Resolve</button></form>`), done.body);
    assert.ok(done.body.includes(`<a class="button secondary" href="/incidents/${incidentId}">Open incident #`), done.body);
    assert.doesNotMatch(done.body, /<script|<style|style=/i);
    const inc = await incident(org, incidentId);
    assert.equal(inc.status, 'acknowledged');
    const change = (inc.timeline as Array<Record<string, any>>).find((t) => t.type === 'status_changed');
    assert.deepEqual(change!.actor, { type: 'user', id: null });
    const esc = await h.c.store.db.selectFrom('escalations').select(['status', 'stop_reason']).where('incident_id', '=', incidentId).executeTakeFirstOrThrow();
    assert.deepEqual({ ...esc }, { status: 'stopped', stop_reason: 'acknowledged' });

    const again = await inject('POST', ackUrl.pathname);
    assert.equal(again.statusCode, 409);
    assert.match(again.body, /already been used/);
    assert.equal((await inject('GET', ackUrl.pathname)).statusCode, 409);
    const tampered = await inject('POST', ackUrl.pathname.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')));
    assert.equal(tampered.statusCode, 404);

    // The resolve link of the same page, used after 24 hours: expired.
    h.clock.advance(24 * 3_600_000 + 1);
    const expired = await inject('POST', resolveUrl.pathname);
    assert.equal(expired.statusCode, 410);
    assert.match(expired.body, /expired/);
    assert.equal((await incident(org, incidentId)).status, 'acknowledged');
  });

  it('one acknowledge link used twice at the same moment: one 200, the other 409, one acknowledgement', async () => {
    const path = `/hook-${h.kind}-race`;
    const { org, fire } = await escalating([{ delayMinutes: 0, targets: [{ type: 'channel', channel: 'webhook', target: { url: `${web.base}${path}` } }] }]);
    const { incidentId } = await fire();
    const hit = await eventually('the page', () => web.hits.find((x) => x.path === path));
    const ackUrl = new URL(JSON.parse(hit.body.toString()).acknowledgeUrl as string);
    const post = () => h.app.inject({ method: 'POST', url: ackUrl.pathname, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    const answers = await Promise.all([post(), post()]);
    assert.deepEqual(answers.map((a) => a.statusCode).sort(), [200, 409], answers.map((a) => a.body).join('\n'));
    const inc = await incident(org, incidentId);
    assert.equal(inc.status, 'acknowledged');
    const acks = (inc.timeline as Array<Record<string, any>>).filter((t) => t.type === 'status_changed');
    assert.equal(acks.length, 1, JSON.stringify(acks));
  });
});
