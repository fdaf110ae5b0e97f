import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { addPerson, asPerson, signIn, type Session } from '../support/sessions.ts';
import { startHttpSink, type HttpSink } from '../support/sinks.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Issue 25 row 8: a member's own webhook URL and ntfy server + topic (on a public ntfy server the topic is the
 * credential) are shown in full to that member only; another member, an admin or an API key reading the alert's
 * delivery log or the incident's timeline sees the host.
 */
const PASSWORD = 'correct horse battery staple';

eachStore('personal targets are their owner\'s', { together: true }, (kind) => {
  let h: Harness;
  let web: HttpSink;
  before(async () => {
    web = await startHttpSink();
    h = await startHarness(kind, { OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '50' });
  });
  after(async () => {
    await h.close();
    await web.close();
  });

  it('another member, an admin and an API key see a member\'s webhook and ntfy targets by their host; the member sees them whole', { timeout: 60_000 }, async () => {
    const org = await h.newOrg('Masks');
    const miaId = await addPerson(h, org.id, `mia-${kind}@acme.test`, PASSWORD, 'member');
    await addPerson(h, org.id, `bob-${kind}@acme.test`, PASSWORD, 'member');
    await addPerson(h, org.id, `ada-${kind}@acme.test`, PASSWORD, 'admin');
    const [mia, bob, ada] = await Promise.all(['mia', 'bob', 'ada'].map((who) => signIn(h, `${who}-${kind}@acme.test`, PASSWORD, { organizationId: org.id })));
    const add = async (body: unknown) => {
      const r = await asPerson(h, mia as Session, 'POST', '/api/v1/users/me/contact-methods', { body });
      assert.equal(r.status, 201, r.raw);
      return r.body.data.id as string;
    };
    const hook = `${web.base}/hooks/mia-secret-path?token=s3cret`;
    const ntfy = { serverUrl: `${web.base}/ntfy`, topic: 'mia-private-topic' };
    const methods = [await add({ type: 'webhook', target: { url: hook } }), await add({ type: 'ntfy', target: ntfy })];
    const rules = await asPerson(h, mia as Session, 'PUT', '/api/v1/users/me/notification-rules', { body: { rules: methods.map((contactMethodId) => ({ contactMethodId, afterMinutes: 0 })) } });
    assert.equal(rules.status, 200, rules.raw);
    const policy = await h.ok('POST', '/api/v1/escalation-policies', { key: org.key, body: { name: 'Mia', steps: [{ delayMinutes: 60, targets: [{ type: 'user', id: miaId }] }] } }, 201);
    await h.ok('POST', '/api/v1/workflows', { key: org.key, body: { name: 'Page', trigger: 'alert.created', actions: [{ type: 'create_incident', escalationPolicyId: policy.data.id }] } }, 201);
    const alertId = await h.ingestAlert((await h.integration(org)).path, { title: 'Disk full', severity: 'critical' });
    const incidentId = await eventually('the incident', async () => (await h.ok('GET', `/api/v1/alerts/${alertId}`, { key: org.key })).data.incidentId ?? undefined) as string;
    await eventually('both pages sent', async () => {
      const l = (await h.ok('GET', `/api/v1/alerts/${alertId}/notifications`, { key: org.key })).data as Array<{ status: string }>;
      return l.length === 2 && l.every((n) => n.status === 'sent') ? true : undefined;
    });

    const targets = async (who: Session | 'key') => {
      const read = (url: string) => (who === 'key' ? h.req('GET', url, { key: org.key }) : asPerson(h, who, 'GET', url));
      const log = await read(`/api/v1/alerts/${alertId}/notifications`);
      assert.equal(log.status, 200, log.raw);
      const incident = await read(`/api/v1/incidents/${incidentId}`);
      assert.equal(incident.status, 200, incident.raw);
      const timeline = (incident.body.data.timeline as Array<{ type: string; data: { channel: string; target: string } }>).filter((t) => t.type === 'notification_sent');
      const byChannel = (rows: Array<{ channel: string; target: string }>) => Object.fromEntries(rows.map((r) => [r.channel, r.target]));
      const fromLog = byChannel(log.body.data);
      assert.deepEqual(byChannel(timeline.map((t) => t.data)), fromLog, 'the timeline shows what the log shows');
      return fromLog;
    };
    assert.deepEqual(await targets(mia as Session), { webhook: hook, ntfy: `${web.base}/ntfy/mia-private-topic` });
    const host = `${web.base}/…`;
    for (const other of [bob as Session, ada as Session, 'key' as const]) {
      const seen = await targets(other);
      assert.deepEqual(seen, { webhook: host, ntfy: host });
      assert.ok(!JSON.stringify(seen).includes('mia-private-topic') && !JSON.stringify(seen).includes('s3cret'));
    }
  });
});
