import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKey, SCOPES } from '../../src/modules/api-keys/api-keys-fns.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { STORE_KINDS } from '../support/stores.ts';
import { eventually } from '../support/eventually.ts';
import { addPerson, asPerson, signIn } from '../support/sessions.ts';

const PASSWORD = 'correct horse battery staple';

interface Op {
  method: string;
  template: string;
  scope: string;
}

/** Every operation the served OpenAPI document lists, so a new route is covered the day it is added. */
function operations(h: Harness): Op[] {
  const doc = h.openapi.doc as unknown as { paths: Record<string, Record<string, { 'x-required-scopes'?: string[] }>> };
  const ops: Op[] = [];
  for (const [template, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const scope = op['x-required-scopes']?.[0];
      if (scope) ops.push({ method: method.toUpperCase(), template, scope });
    }
  }
  return ops;
}

const url = (op: Op, id: string) => `/api/v1${op.template.replace('{id}', encodeURIComponent(id))}`;

/** A body that passes validation, so that only the check under test can fail the request. */
function validBody(op: Op): unknown {
  if (op.method === 'GET' || op.method === 'DELETE') return undefined;
  if (op.template === '/alerts/bulk') return { action: 'acknowledge', ids: ['x'] };
  if (op.template === '/api-keys') return { name: 'k', scopes: ['alerts:read'] };
  if (op.template === '/integrations/{id}/preview') return { payload: { title: 't', severity: 'low' } };
  if (op.template === '/integrations/{id}/rotate-token') return undefined;
  if (op.template.startsWith('/integrations')) return { name: 'renamed' };
  if (op.template.startsWith('/suppression')) return { name: 'renamed', startsAt: '2026-11-21T10:00:00.000Z', endsAt: '2026-11-21T11:00:00.000Z' };
  if (op.template.startsWith('/clients')) return { name: 'renamed', slug: 'renamed' };
  if (op.template === '/workflows/{id}/test') return { alert: { title: 't', severity: 'low' } };
  if (op.template === '/workflows/test') return { actions: [{ type: 'suppress' }], alert: { title: 't', severity: 'low' } };
  if (op.template === '/workflows/{id}/enable' || op.template === '/workflows/{id}/disable') return undefined;
  if (op.template.startsWith('/workflows')) return { name: 'renamed', trigger: 'alert.created', actions: [{ type: 'suppress' }] };
  if (op.template.startsWith('/schedules')) return { name: 'renamed' };
  if (op.template === '/heartbeats/{id}/rotate-token') return undefined;
  if (op.template.startsWith('/heartbeats')) return { name: 'renamed', intervalSeconds: 60 };
  if (op.template.startsWith('/escalation-policies')) return { name: 'renamed', steps: [{ delayMinutes: 5, targets: [{ type: 'channel', channel: 'email', target: { to: 'ops@acme.test' } }] }] };
  if (op.template === '/incidents/{id}') return { status: 'acknowledged' };
  if (op.template === '/incidents/{id}/notes') return { text: 'a note' };
  if (op.template === '/incidents/{id}/escalate') return undefined;
  if (op.template === '/incidents/{id}/responders') return { userId: 'usr_x' };
  if (op.template === '/incidents/{id}/snooze') return { minutes: 30 };
  if (op.template === '/users') return { email: 'new@acme.test', name: 'New', role: 'member' };
  if (op.template === '/users/me' || op.template === '/users/{id}') return { name: 'renamed' };
  if (op.template === '/users/me/password') return { currentPassword: 'x', newPassword: 'a new long password' };
  if (op.template === '/users/{id}/password-link') return undefined;
  if (op.template === '/users/me/contact-methods') return { type: 'email', target: { to: 'me@acme.test' } };
  if (op.template === '/users/me/contact-methods/{id}') return { label: 'renamed' };
  if (op.template === '/users/me/contact-methods/{id}/verify') return { code: '123456' };
  if (op.template === '/users/me/contact-methods/link') return { type: 'telegram' };
  if (op.template === '/channels/{type}/test') return { target: { url: 'https://hooks.example.com/x' } };
  if (op.template === '/channel-settings/{channel}') return { botToken: 'xoxb-a-token-that-is-long-enough' };
  if (op.template === '/users/me/notification-rules') return { rules: [] };
  return {};
}

/** An incident of `org`: a create_incident workflow and an alert it groups (the job workers in the container run it). */
async function incidentOf(h: Harness, org: Org, path: string, title: string): Promise<string> {
  const wf = await h.req('POST', '/api/v1/workflows', { key: org.key, body: { name: title, trigger: 'alert.created', actions: [{ type: 'create_incident', title }] } });
  assert.equal(wf.status, 201, wf.raw);
  const sent = await h.ingest(path, { title: `${title} alert`, severity: 'high' });
  const alertId = sent.body.data.alerts[0].alertId as string;
  return eventually(`the incident of ${alertId}`, async () =>
    (await h.req('GET', `/api/v1/alerts/${alertId}`, { key: org.key })).body.data.incidentId ?? undefined);
}

async function createKey(h: Harness, org: Org, scopes: string[], expiresAt?: string): Promise<{ id: string; key: string }> {
  const r = await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'sec', scopes, ...(expiresAt && { expiresAt }) } });
  assert.equal(r.status, 201, r.raw);
  return { id: r.body.data.id, key: r.body.data.key };
}

for (const kind of STORE_KINDS) {
  describe(`security suite on every route (${kind})`, () => {
    let h: Harness;
    let ops: Op[];
    const keys: Record<string, string> = {};

    before(async () => {
      h = await startHarness(kind);
      ops = operations(h);
      const revoked = await createKey(h, h.org, [...SCOPES]);
      assert.equal((await h.req('DELETE', `/api/v1/api-keys/${revoked.id}`)).status, 204);
      keys.revoked = revoked.key;
      keys.expired = (await createKey(h, h.org, [...SCOPES], new Date(h.clock.now() + 60_000).toISOString())).key;
      h.clock.advance(120_000);
      const valid = h.org.key;
      keys.badChecksum = valid.slice(0, -1) + (valid.endsWith('A') ? 'B' : 'A');
      keys.unknown = generateKey('test');
      keys.otherEnv = generateKey('live');
      keys.otherEnvSameSecret = valid.replace('af_test_', 'af_live_');
      keys.truncated = valid.slice(0, 20);
      keys.garbage = 'not-a-key';
    });
    after(() => h.close());

    it('the document lists the operations this build serves', () => {
      assert.ok(ops.length >= 14, `only ${ops.length} operations`);
    });

    it('answers 401 UNAUTHORIZED without a usable key, on every route', async () => {
      for (const op of ops) {
        const body = validBody(op);
        const variants: Array<[string, Record<string, string>]> = [
          ['no header', {}],
          ['not bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
          ['empty bearer', { authorization: 'Bearer ' }],
          ...Object.entries(keys).map(([name, k]): [string, Record<string, string>] => [name, { authorization: `Bearer ${k}` }]),
        ];
        for (const [name, headers] of variants) {
          const r = await h.req(op.method, url(op, 'anything'), { key: null, headers, body });
          assert.equal(r.status, 401, `${op.method} ${op.template} with ${name}: ${r.raw}`);
          assert.equal(r.body.code, 'UNAUTHORIZED');
          assert.equal(r.body.details, null);
        }
      }
    });

    it('answers 403 FORBIDDEN naming the scope when the key lacks it, on every route', async () => {
      for (const op of ops) {
        const other = SCOPES.find((s) => s !== op.scope) as string;
        const { key } = await createKey(h, h.org, [other]);
        const r = await h.req(op.method, url(op, 'anything'), { key, body: validBody(op) });
        assert.equal(r.status, 403, `${op.method} ${op.template}: ${r.raw}`);
        assert.equal(r.body.code, 'FORBIDDEN');
        assert.match(r.body.error, new RegExp(op.scope));
      }
    });

    it('with the session cookie: 401 once signed out, 403 for a change without the CSRF token, 403 outside the role, on every route', async () => {
      await addPerson(h, h.org.id, 'member@acme.test', PASSWORD, 'member');
      await addPerson(h, h.org.id, 'leaver@acme.test', PASSWORD, 'admin');
      const member = await signIn(h, 'member@acme.test', PASSWORD);
      const leaver = await signIn(h, 'leaver@acme.test', PASSWORD);
      assert.equal((await asPerson(h, leaver, 'POST', '/api/v1/auth/logout')).status, 204);
      const memberScopes = new Set((await asPerson(h, member, 'GET', '/api/v1/auth/session')).body.data.scopes as string[]);
      for (const op of ops) {
        const body = validBody(op);
        const out = await asPerson(h, leaver, op.method, url(op, 'anything'), { body });
        assert.equal(out.status, 401, `${op.method} ${op.template} signed out: ${out.raw}`);
        if (!memberScopes.has(op.scope)) {
          const r = await asPerson(h, member, op.method, url(op, 'anything'), { body });
          assert.equal(r.status, 403, `${op.method} ${op.template} as a member: ${r.raw}`);
          assert.match(r.body.error, new RegExp(op.scope));
        } else if (op.method !== 'GET') {
          const r = await asPerson(h, member, op.method, url(op, 'anything'), { body, csrf: null });
          assert.equal(r.status, 403, `${op.method} ${op.template} without CSRF token: ${r.raw}`);
          assert.match(r.body.error, /CSRF/);
        }
      }
    });

    it("answers another organization's id exactly like an id that does not exist, on every route with an id", async () => {
      const other = await h.newOrg('Other');
      const integ = await h.integration(other);
      const ingested = await h.ingest(integ.path, { title: 'theirs', severity: 'high' });
      const theirKey = await createKey(h, other, ['alerts:read']);
      // Before their suppressing workflow below, which would suppress the alert and stop later workflows.
      const theirIncident = await incidentOf(h, other, integ.path, 'theirs');
      const theirWindow = await h.req('POST', '/api/v1/suppression', { key: other.key, body: { name: 'Theirs', startsAt: '2026-11-21T10:00:00.000Z', endsAt: '2026-11-21T11:00:00.000Z' } });
      const theirClient = await h.req('POST', '/api/v1/clients', { key: other.key, body: { name: 'Theirs', slug: 'theirs' } });
      const theirWorkflow = await h.req('POST', '/api/v1/workflows', { key: other.key, body: { name: 'Theirs', trigger: 'alert.created', actions: [{ type: 'suppress' }] } });
      const theirSchedule = await h.req('POST', '/api/v1/schedules', { key: other.key, body: { name: 'Theirs', layers: [{ name: 'L', startsAt: '2026-11-21T00:00:00.000Z', rotation: 'daily', users: [other.ownerId] }] } });
      const theirHeartbeat = await h.req('POST', '/api/v1/heartbeats', { key: other.key, body: { name: 'Theirs', intervalSeconds: 60 } });
      const theirPolicy = await h.req('POST', '/api/v1/escalation-policies', { key: other.key, body: { name: 'Theirs', steps: [{ delayMinutes: 5, targets: [{ type: 'user', id: other.ownerId }] }] } });
      const foreignIds: Record<string, string> = {
        alerts: ingested.body.data.alerts[0].alertId,
        integrations: integ.id,
        'api-keys': theirKey.id,
        suppression: theirWindow.body.data.id,
        clients: theirClient.body.data.id,
        workflows: theirWorkflow.body.data.id,
        schedules: theirSchedule.body.data.id,
        incidents: theirIncident,
        users: other.ownerId,
        heartbeats: theirHeartbeat.body.data.id,
        'escalation-policies': theirPolicy.body.data.id,
      };
      const withId = ops.filter((op) => op.template.includes('{id}'));
      assert.ok(withId.length >= 6);
      // A member's own records are reached with their session (an API key has no member: 403); checked below.
      const own = withId.filter((op) => op.template.startsWith('/users/me/'));
      for (const op of withId.filter((o) => !own.includes(o))) {
        const resource = op.template.split('/')[1] as string;
        const foreign = foreignIds[resource];
        assert.ok(foreign, `no foreign record for ${op.template}; add one to this test`);
        const theirs = await h.req(op.method, url(op, foreign), { body: validBody(op) });
        const missing = await h.req(op.method, url(op, `${resource.slice(0, 3)}_doesNotExist`), { body: validBody(op) });
        assert.equal(theirs.status, 404, `${op.method} ${op.template}: ${theirs.raw}`);
        assert.equal(theirs.raw, missing.raw, `${op.method} ${op.template} tells a foreign id from a missing one`);
      }
      await addPerson(h, other.id, 'their-member@other.test', PASSWORD, 'member');
      const them = await signIn(h, 'their-member@other.test', PASSWORD);
      const theirMethod = await asPerson(h, them, 'POST', '/api/v1/users/me/contact-methods', { body: { type: 'email', target: { to: 'theirs@other.test' } } });
      await addPerson(h, h.org.id, 'own-records@acme.test', PASSWORD, 'member');
      const me = await signIn(h, 'own-records@acme.test', PASSWORD);
      for (const op of own) {
        const theirs = await asPerson(h, me, op.method, url(op, theirMethod.body.data.id), { body: validBody(op) });
        const missing = await asPerson(h, me, op.method, url(op, 'cm_doesNotExist'), { body: validBody(op) });
        assert.equal(theirs.status, 404, `${op.method} ${op.template}: ${theirs.raw}`);
        assert.equal(theirs.raw, missing.raw, `${op.method} ${op.template} tells a foreign id from a missing one`);
      }
      assert.deepEqual((await asPerson(h, them, 'GET', `/api/v1/users/me/contact-methods/${theirMethod.body.data.id}`)).body.data, theirMethod.body.data);
      // Nothing of theirs changed through our key.
      const still = await h.req('GET', `/api/v1/alerts/${foreignIds.alerts}`, { key: other.key });
      assert.equal(still.body.data.status, 'firing');
      const theirKeys = await h.req('GET', '/api/v1/api-keys', { key: other.key });
      assert.ok(theirKeys.body.data.some((k: { id: string }) => k.id === theirKey.id));
      assert.deepEqual((await h.req('GET', `/api/v1/suppression/${foreignIds.suppression}`, { key: other.key })).body.data, theirWindow.body.data);
      assert.deepEqual((await h.req('GET', `/api/v1/clients/${foreignIds.clients}`, { key: other.key })).body.data, theirClient.body.data);
      assert.deepEqual((await h.req('GET', `/api/v1/workflows/${foreignIds.workflows}`, { key: other.key })).body.data, theirWorkflow.body.data);
      assert.deepEqual((await h.req('GET', `/api/v1/schedules/${foreignIds.schedules}`, { key: other.key })).body.data, theirSchedule.body.data);
      const { token: _token, pingUrl: _url, ...theirBeat } = theirHeartbeat.body.data;
      assert.deepEqual((await h.req('GET', `/api/v1/heartbeats/${foreignIds.heartbeats}`, { key: other.key })).body.data, theirBeat);
      assert.equal((await h.req('GET', `/api/inbound/heartbeat/${theirHeartbeat.body.data.token}`, { key: null })).status, 200, 'their token still pings');
      assert.deepEqual((await h.req('GET', `/api/v1/escalation-policies/${foreignIds['escalation-policies']}`, { key: other.key })).body.data, theirPolicy.body.data);
      const incident = (await h.req('GET', `/api/v1/incidents/${foreignIds.incidents}`, { key: other.key })).body.data;
      assert.equal(incident.status, 'triggered');
    });

    it('never lists another organization\'s records', async () => {
      const other = await h.newOrg('Other2');
      const integ = await h.integration(other);
      await h.ingest(integ.path, { title: 'secret-title', severity: 'high' });
      await incidentOf(h, other, integ.path, 'secret-title');
      await h.req('POST', '/api/v1/suppression', { key: other.key, body: { name: 'secret-title', startsAt: '2026-11-21T10:00:00.000Z', endsAt: '2026-11-21T11:00:00.000Z' } });
      await h.req('POST', '/api/v1/clients', { key: other.key, body: { name: 'secret-title', slug: 'secret-title' } });
      await h.req('POST', '/api/v1/workflows', { key: other.key, body: { name: 'secret-title', trigger: 'alert.created', actions: [{ type: 'suppress' }] } });
      await h.req('POST', '/api/v1/schedules', { key: other.key, body: { name: 'secret-title', layers: [{ name: 'L', startsAt: '2026-11-21T00:00:00.000Z', rotation: 'daily', users: [other.ownerId] }] } });
      await h.req('POST', '/api/v1/heartbeats', { key: other.key, body: { name: 'secret-title', intervalSeconds: 60 } });
      await h.req('POST', '/api/v1/escalation-policies', { key: other.key, body: { name: 'secret-title', steps: [{ delayMinutes: 5, targets: [{ type: 'user', id: other.ownerId }] }] } });
      for (const path of ['/api/v1/alerts', '/api/v1/integrations', '/api/v1/suppression', '/api/v1/clients', '/api/v1/workflows', '/api/v1/schedules', '/api/v1/schedules/current-oncall', '/api/v1/incidents', '/api/v1/heartbeats', '/api/v1/api-keys', '/api/v1/users', '/api/v1/audit-log', '/api/v1/escalation-policies']) {
        const r = await h.req('GET', `${path}?limit=100`);
        assert.equal(r.status, 200);
        assert.ok(!r.raw.includes(other.id) && !r.raw.includes(integ.id) && !r.raw.includes('secret-title'), `${path} leaks another organization's data`);
      }
    });
  });
}

for (const kind of STORE_KINDS) {
  describe(`security of the event stream GET /events (${kind})`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(kind);
      await h.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => h.close());

    it("never carries another organization's events, even when resuming from before them", async () => {
      const { openSse } = await import('../support/sse.ts');
      const address = h.app.server.address();
      const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/events`;
      const other = await h.newOrg('Other');
      const theirs = await h.integration(other);
      const ours = await h.integration();
      const live = await openSse(base, { authorization: `Bearer ${h.org.key}` });
      await h.ingest(theirs.path, { title: 'secret-title', severity: 'critical' });
      const mine = await h.ingestAlert(ours.path, { title: 'ours', severity: 'low' });
      await live.next((e) => e.data.id === mine);
      const resumed = await openSse(base, { authorization: `Bearer ${h.org.key}`, 'last-event-id': '0' });
      await resumed.next((e) => e.data.id === mine);
      for (const s of [live, resumed]) {
        assert.ok(s.events.every((e) => e.data.title !== 'secret-title'), 'another organization\'s event leaked');
        s.close();
      }
    });
  });
}
