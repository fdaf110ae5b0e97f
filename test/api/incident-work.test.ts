import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { addPerson, asPerson, signIn } from '../support/sessions.ts';
import { STORE_KINDS } from '../support/stores.ts';

/**
 * Working an incident through the API: notes, a severity changed by hand, the `mine` filter; each on both
 * stores, through one harness per store.
 */

type Rec = Record<string, any>;

for (const kind of STORE_KINDS) {
  describe(`working an incident (${kind})`, () => {
    let h: Harness;
    let org: Org;
    let ingestPath: string;
    let n = 0;
    before(async () => {
      h = await startHarness(kind, { JOB_POLL_MS: '20' });
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
  });
}
