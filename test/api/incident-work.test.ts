import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { createContainer } from '../../src/container.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { addPerson, asPerson, signIn } from '../support/sessions.ts';
import { STORE_KINDS } from '../support/stores.ts';

/**
 * Working an incident through the API: notes, a severity changed by hand, the `mine` filter, escalate now,
 * responders and snooze (also across a restart); each on both stores, through one harness per store.
 */

// A policy (and snooze) "minute" lasts 100 ms here: a 600-minute delay is a minute, a 3-minute snooze 0.3 s.
const MINUTE_MS = 100;

type Rec = Record<string, any>;

for (const kind of STORE_KINDS) {
  describe(`working an incident (${kind})`, () => {
    let h: Harness;
    let org: Org;
    let ingestPath: string;
    let n = 0;
    before(async () => {
      h = await startHarness(kind, { JOB_POLL_MS: '20', ESCALATION_MINUTE_MS: String(MINUTE_MS) });
      org = h.org;
      await h.ok('POST', '/api/v1/workflows', {
        body: { name: 'Incidents', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.title}}' }] },
      }, 201);
      ingestPath = (await h.integration()).path;
    });
    after(() => h.close());

    /** A new incident of its own (a service of its own), once the workflow has run. */
    async function incident(severity = 'high'): Promise<{ id: string; alertId: string }> {
      n += 1;
      const alertId = await h.ingestAlert(ingestPath, { title: `Trouble ${n}`, severity, labels: { service: `svc-${n}` } });
      const id = await eventually('the incident', async () => (await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.incidentId ?? undefined) as string;
      return { id, alertId };
    }
    const get = async (id: string): Promise<Rec> => (await h.ok('GET', `/api/v1/incidents/${id}`)).data;
    const audit = async (action: string): Promise<Rec[]> => (await h.ok('GET', `/api/v1/audit-log?action=${action}`)).data;

    it('a note joins the timeline as its author wrote it, and is audited without its words', async () => {
      const { id } = await incident();
      const text = 'Restarted db-1.\n<b>Not</b> the cause: see https://wiki.example/db';
      const r = await h.req('POST', `/api/v1/incidents/${id}/notes`, { body: { text } });
      assert.equal(r.status, 201, r.raw);
      assert.equal(r.body.data.type, 'note_added');
      assert.deepEqual(r.body.data.data, { text });
      assert.deepEqual(r.body.data.actor.type, 'api_key');
      const entry = (await get(id)).timeline.find((e: Rec) => e.type === 'note_added');
      assert.deepEqual(entry, r.body.data);
      const [event] = (await audit('incident.note_added')).filter((e) => e.target?.id === id);
      assert.ok(event, 'no audit event');
      assert.deepEqual(event.metadata, { length: text.length });
      assert.ok(!JSON.stringify(event).includes('Restarted'), 'the audit log keeps the length, not the words');
    });

    it('refuses an empty or blank note, and one on another organization\'s incident, changing nothing', async () => {
      const { id } = await incident();
      for (const body of [{ text: '' }, { text: '   \n ' }, {}, { text: 'x'.repeat(5001) }, { text: 'ok', extra: 1 }]) {
        const r = await h.req('POST', `/api/v1/incidents/${id}/notes`, { body });
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(r.body.code, 'VALIDATION_ERROR');
      }
      const other = await h.newOrg('Other');
      const r = await h.req('POST', `/api/v1/incidents/${id}/notes`, { key: other.key, body: { text: 'hello' } });
      assert.equal(r.status, 404);
      assert.equal((await get(id)).timeline.filter((e: Rec) => e.type === 'note_added').length, 0);
    });

    it('a severity changed by hand is recorded with who changed it, and holds until a more severe alert joins', async () => {
      const { id } = await incident('high');
      const r = await h.req('PATCH', `/api/v1/incidents/${id}`, { body: { severity: 'low' } });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.severity, 'low');
      const entry = (await get(id)).timeline.find((e: Rec) => e.type === 'severity_changed');
      assert.deepEqual([entry.data, entry.actor.type], [{ from: 'high', to: 'low' }, 'api_key']);
      assert.equal((await audit('incident.severity_changed')).filter((e) => e.target?.id === id).length, 1);
      // The same severity again changes nothing.
      await h.ok('PATCH', `/api/v1/incidents/${id}`, { body: { severity: 'low' } });
      assert.equal((await get(id)).timeline.filter((e: Rec) => e.type === 'severity_changed').length, 1);
      assert.equal((await h.req('PATCH', `/api/v1/incidents/${id}`, { body: { severity: 'urgent' } })).status, 400);
      // A critical alert of the same service joins: the incident is critical again.
      await h.ingestAlert(ingestPath, { title: 'Worse', severity: 'critical', labels: { service: `svc-${n}` } });
      await eventually('critical again', async () => ((await get(id)).severity === 'critical' ? true : undefined));
    });

    it('`mine` lists the incidents assigned to the signed-in member; an API key cannot ask for it', async () => {
      const meId = await addPerson(h, org.id, `mia-${kind}@acme.test`, 'a long enough password', 'member');
      const me = await signIn(h, `mia-${kind}@acme.test`, 'a long enough password');
      const mine = await incident();
      await incident();
      await h.ok('PATCH', `/api/v1/incidents/${mine.id}`, { body: { assigneeId: meId } });
      const r = await asPerson(h, me, 'GET', '/api/v1/incidents?mine=true');
      assert.equal(r.status, 200, r.raw);
      assert.deepEqual(r.body.data.map((i: Rec) => i.id), [mine.id]);
      assert.equal(r.body.meta.total, 1);
      const all = await asPerson(h, me, 'GET', '/api/v1/incidents');
      assert.ok(all.body.data.length > 1);
      const byKey = await h.req('GET', '/api/v1/incidents?mine=true');
      assert.equal(byKey.status, 400);
      assert.equal(byKey.body.details[0].path, '/mine');
    });
    /** An organization whose alerts open an incident escalating with `steps`, and two members to page. */
    async function paging(steps: (a: string, b: string) => unknown[]) {
      const o = await h.newOrg(`Paging ${++n}`);
      const [a, b] = await Promise.all(['ana', 'bob'].map((who) => h.c.users.add(o.id, { email: `${who}-${n}@acme.test`, name: who, role: 'member', password: 'a long enough password' })));
      const policy = (await h.ok('POST', '/api/v1/escalation-policies', { key: o.key, body: { name: 'Ops', steps: steps(a!.id, b!.id) } }, 201)).data;
      await h.ok('POST', '/api/v1/workflows', {
        key: o.key, body: { name: 'Page', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: ['labels.service'], title: '{{alert.title}}', escalationPolicyId: policy.id }] },
      }, 201);
      const path = (await h.integration(o)).path;
      const alertId = await h.ingestAlert(path, { title: 'Queue stuck', severity: 'critical', labels: { service: 'queue' } });
      const id = await eventually('the incident', async () => (await h.ok('GET', `/api/v1/alerts/${alertId}`, { key: o.key })).data.incidentId ?? undefined) as string;
      const timeline = async (): Promise<Rec[]> => (await h.ok('GET', `/api/v1/incidents/${id}`, { key: o.key })).data.timeline;
      const waitFor = (what: string, test: (e: Rec) => boolean) => eventually(what, async () => (await timeline()).find(test));
      return { org: o, a: a!.id, b: b!.id, bobEmail: b!.email, policy, id, alertId, timeline, waitFor, path };
    }
    const post = (o: Org, url: string, body?: unknown) => h.req('POST', url, { key: o.key, ...(body !== undefined && { body }) });
    const pagedUsers = (e: Rec) => (e.data.paged as Rec[]).map((p) => p.userId);

    it('escalate now fires the next step at once, and only once; with nobody being paged it says why (409)', async () => {
      const p = await paging((a, b) => [{ delayMinutes: 600, targets: [{ type: 'user', id: a }] }, { delayMinutes: 600, targets: [{ type: 'user', id: b }] }]);
      await p.waitFor('step 1', (e) => e.type === 'escalation_step' && e.data.step === 1);
      const r = await post(p.org, `/api/v1/incidents/${p.id}/escalate`);
      assert.equal(r.status, 200, r.raw);
      const step2 = await p.waitFor('step 2, at once', (e) => e.type === 'escalation_step' && e.data.step === 2);
      assert.deepEqual(pagedUsers(step2), [p.b]);
      const asked = (await p.timeline()).find((e) => e.type === 'escalated');
      assert.deepEqual([asked?.data.step, asked?.actor.type], [2, 'api_key']);
      // Step 2 was the last: nothing more to escalate to.
      const again = await post(p.org, `/api/v1/incidents/${p.id}/escalate`);
      assert.equal(again.status, 409);
      assert.match(again.body.error, /last step|no escalation under way/);
      assert.equal((await p.timeline()).filter((e) => e.type === 'escalation_step').length, 2, 'no step fired twice');
      await h.ok('PUT', `/api/v1/incidents/${p.id}`, { key: p.org.key, body: { status: 'acknowledged' } });
      const acked = await post(p.org, `/api/v1/incidents/${p.id}/escalate`);
      assert.equal(acked.status, 409);
      assert.match(acked.body.error, /acknowledged/);
    });

    it('a responder is paged now beside the escalation, and `mine` then lists the incident for them; bad responders change nothing', async () => {
      const p = await paging((a) => [{ delayMinutes: 600, targets: [{ type: 'user', id: a }] }]);
      await p.waitFor('step 1', (e) => e.type === 'escalation_step');
      await h.ok('PUT', `/api/v1/incidents/${p.id}`, { key: p.org.key, body: { status: 'acknowledged' } });
      // Acknowledged: nobody is being paged, yet a responder can be.
      const r = await post(p.org, `/api/v1/incidents/${p.id}/responders`, { userId: p.b });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.status, 'acknowledged', 'asking for help does not change the incident');
      const paged = await p.waitFor('the responder paged', (e) => e.type === 'responder_paged');
      assert.deepEqual(pagedUsers(paged), [p.b]);
      const added = (await p.timeline()).find((e) => e.type === 'responder_added');
      assert.equal(added?.data.userId, p.b);
      await p.waitFor('the page to the responder, by email', (e) => e.type.startsWith('notification_') && e.data.recipientId === p.b);
      // Never assigned, the responder finds it with `mine`: it paged them.
      const bob = await signIn(h, p.bobEmail, 'a long enough password');
      const mine = await asPerson(h, bob, 'GET', '/api/v1/incidents?mine=true');
      assert.deepEqual(mine.body.data.map((i: Rec) => i.id), [p.id]);
      const audit = (await h.ok('GET', '/api/v1/audit-log?action=incident.responder_added', { key: p.org.key })).data;
      assert.equal(audit.length, 1);

      for (const [body, path] of [[{ userId: 'usr_nope' }, '/userId'], [{ policyId: 'esp_nope' }, '/policyId']] as const) {
        const bad = await post(p.org, `/api/v1/incidents/${p.id}/responders`, body);
        assert.equal(bad.status, 400, bad.raw);
        assert.equal(bad.body.details[0].path, path);
      }
      assert.equal((await post(p.org, `/api/v1/incidents/${p.id}/responders`, { userId: p.b, policyId: p.policy.id })).status, 400);
      const other = await h.newOrg('Elsewhere');
      assert.equal((await post(other, `/api/v1/incidents/${p.id}/responders`, { userId: p.b })).status, 404);
      await h.ok('PUT', `/api/v1/incidents/${p.id}`, { key: p.org.key, body: { status: 'resolved' } });
      assert.equal((await post(p.org, `/api/v1/incidents/${p.id}/responders`, { userId: p.b })).status, 409);
      assert.equal((await p.timeline()).filter((e) => e.type === 'responder_added').length, 1, 'refused requests left nothing');
    });

    it('a policy as responder escalates an incident that has stopped escalating, and pages its first step once beside a running escalation', async () => {
      // One step: after it pages, the escalation is done and the incident is still triggered.
      const p = await paging((a) => [{ delayMinutes: 600, targets: [{ type: 'user', id: a }] }]);
      await p.waitFor('step 1', (e) => e.type === 'escalation_step');
      const backup = (await h.ok('POST', '/api/v1/escalation-policies', {
        key: p.org.key, body: { name: 'Backup', steps: [{ delayMinutes: 600, targets: [{ type: 'user', id: p.b }] }, { delayMinutes: 600, targets: [{ type: 'user', id: p.a }] }] },
      }, 201)).data;
      assert.equal((await post(p.org, `/api/v1/incidents/${p.id}/responders`, { policyId: backup.id })).status, 200);
      const started = await p.waitFor('Backup escalating', (e) => e.type === 'escalation_started' && e.data.policyName === 'Backup');
      const first = await p.waitFor('Backup step 1', (e) => e.type === 'escalation_step' && e.data.escalationId === started.data.escalationId);
      assert.deepEqual(pagedUsers(first), [p.b]);
      // Backup is escalating now: asking for it again pages its first step once more, as a responder.
      assert.equal((await post(p.org, `/api/v1/incidents/${p.id}/responders`, { policyId: backup.id })).status, 200);
      const once = await p.waitFor('Backup\'s first step paged once', (e) => e.type === 'responder_paged');
      assert.deepEqual(pagedUsers(once), [p.b]);
      const added = (await p.timeline()).filter((e) => e.type === 'responder_added').map((e) => [e.data.policyName, e.data.started]);
      assert.deepEqual(added, [['Backup', true], ['Backup', false]]);
    });

    it('snooze acknowledges now, then triggers and pages again; answering first cancels it', async () => {
      const p = await paging((a, b) => [{ delayMinutes: 600, targets: [{ type: 'user', id: a }] }, { delayMinutes: 600, targets: [{ type: 'user', id: b }] }]);
      await p.waitFor('step 1', (e) => e.type === 'escalation_step');
      const r = await post(p.org, `/api/v1/incidents/${p.id}/snooze`, { minutes: 5 });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.status, 'acknowledged');
      assert.equal(r.body.data.snoozedUntil, new Date(h.clock.now() + 5 * MINUTE_MS).toISOString());
      assert.equal((await h.ok('GET', `/api/v1/alerts/${p.alertId}`, { key: p.org.key })).data.status, 'acknowledged', 'its alerts are acknowledged too');
      const stopped = await p.waitFor('escalation stopped', (e) => e.type === 'escalation_stopped');
      assert.equal(stopped.data.reason, 'acknowledged');
      const back = await p.waitFor('triggered again', (e) => e.type === 'status_changed' && e.data.to === 'triggered');
      assert.equal(back.data.reason, 'snooze_ended');
      const restarted = await p.waitFor('paged again', (e) => e.type === 'escalation_step' && (e.data.escalationId !== stopped.data.escalationId));
      assert.deepEqual(pagedUsers(restarted), [p.a]);
      const now = (await h.ok('GET', `/api/v1/incidents/${p.id}`, { key: p.org.key })).data;
      assert.deepEqual([now.status, now.snoozedUntil], ['triggered', null]);

      // Snoozed, then resolved: the end finds it resolved and leaves it so.
      await post(p.org, `/api/v1/incidents/${p.id}/snooze`, { minutes: 2 });
      await h.ok('PUT', `/api/v1/incidents/${p.id}`, { key: p.org.key, body: { status: 'resolved' } });
      await new Promise((resolve) => setTimeout(resolve, 6 * MINUTE_MS));
      assert.equal((await h.ok('GET', `/api/v1/incidents/${p.id}`, { key: p.org.key })).data.status, 'resolved');
      assert.equal((await post(p.org, `/api/v1/incidents/${p.id}/snooze`, { minutes: 2 })).status, 409);
      for (const minutes of [0, 10_081, 1.5]) assert.equal((await post(p.org, `/api/v1/incidents/${p.id}/snooze`, { minutes })).status, 400);
    });
  });

  describe(`a snooze outlives a restart (${kind})`, () => {
    let h: Harness;
    before(async () => { h = await startHarness(kind, { JOB_POLL_MS: '20', ESCALATION_MINUTE_MS: '1000' }); });
    after(() => h.close());

    it('the end of a snooze is a queued job: a new process triggers the incident again', async () => {
      await h.ok('POST', '/api/v1/workflows', { body: { name: 'Open', trigger: 'alert.created', actions: [{ type: 'create_incident', groupBy: [], title: '{{alert.title}}' }] } }, 201);
      const alertId = await h.ingestAlert((await h.integration()).path, { title: 'Nightly backup late', severity: 'high' });
      const id = await eventually('the incident', async () => (await h.ok('GET', `/api/v1/alerts/${alertId}`)).data.incidentId ?? undefined) as string;
      await h.ok('POST', `/api/v1/incidents/${id}/snooze`, { body: { minutes: 2 } });
      // The process stops before the snooze ends; another starts on the same store.
      await h.c.close();
      const next = await createContainer(h.config, { log: pino({ level: 'silent' }), clock: h.clock });
      try {
        const status = await eventually('triggered again by the new process', async () => {
          const row = await next.incidents.row(next.store.db, h.org.id, id);
          return row?.status === 'triggered' ? row.status : undefined;
        }, 30_000);
        assert.equal(status, 'triggered');
      } finally {
        await next.close();
        // The harness closes its app and store; its container is closed already.
        h.c.close = async () => undefined;
      }
    });
  });
}
