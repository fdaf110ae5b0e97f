import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { startHttpSink, type HttpSink } from '../support/sinks.ts';
import { STORE_KINDS } from '../support/stores.ts';

const iso = (ms: number): string => new Date(ms).toISOString();
const SECRET = 'heartbeat-webhook-secret-0123456789';

for (const kind of STORE_KINDS) {
  describe(`heartbeats (${kind})`, () => {
    let h: Harness;
    let web: HttpSink;
    before(async () => {
      // The checker is run by hand below, against the test's clock; its own timer stays out of the way.
      h = await startHarness(kind, { HEARTBEAT_CHECK_SECONDS: '3600', OUTBOUND_ALLOW: '127.0.0.1/32', JOB_POLL_MS: '50' });
      web = await startHttpSink();
    });
    after(async () => {
      await h.close();
      await web.close();
    });

    let n = 0;
    async function create(org: Org, body: Record<string, unknown> = {}) {
      n += 1;
      const r = await h.req('POST', '/api/v1/heartbeats', { key: org.key, body: { name: `nightly-backup-${n}`, intervalSeconds: 3600, ...body } });
      assert.equal(r.status, 201, r.raw);
      return r.body.data as Record<string, any>;
    }
    const pingPath = (hb: Record<string, any>) => `/api/inbound/heartbeat/${hb.token}`;
    const ping = (hb: Record<string, any>, method = 'GET', opts: { rawBody?: string; headers?: Record<string, string> } = {}) =>
      h.req(method, pingPath(hb), { key: null, ...opts });
    const get = async (org: Org, id: string) => (await h.ok('GET', `/api/v1/heartbeats/${id}`, { key: org.key })).data as Record<string, any>;
    const heartbeatAlerts = async (org: Org) =>
      (await h.ok('GET', '/api/v1/alerts?source=heartbeat&limit=100', { key: org.key })).data as Array<Record<string, any>>;

    it('POST: 201 with defaults, the ping token and URL shown once; only its hash is stored', async () => {
      const org = await h.newOrg();
      const r = await h.req('POST', '/api/v1/heartbeats', { key: org.key, body: { name: 'nightly backup', intervalSeconds: 86_400 } });
      assert.equal(r.status, 201, r.raw);
      const d = r.body.data;
      assert.match(d.id, /^hbt_/);
      assert.match(d.token, /^hb_[A-Za-z0-9_-]{32}$/);
      assert.equal(d.pingUrl, `http://alertflow.test/api/inbound/heartbeat/${d.token}`);
      const now = h.clock.now();
      const { token, pingUrl, ...shown } = d;
      assert.deepEqual(shown, {
        id: d.id, name: 'nightly backup', intervalSeconds: 86_400, graceSeconds: 60, severity: 'critical', clientId: null, labels: {},
        paused: false, state: 'new', lastPingAt: null, nextDueAt: iso(now + (86_400 + 60) * 1000), createdAt: iso(now), updatedAt: iso(now),
      });
      assert.deepEqual(await get(org, d.id), shown, 'GET never shows the token');
      const list = await h.ok('GET', '/api/v1/heartbeats', { key: org.key });
      assert.deepEqual(list.data, [shown]);
      assert.equal(list.meta.total, 1);
      const row = await h.c.store.db.selectFrom('heartbeats').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
      assert.equal(row.token_hash, createHash('sha256').update(token).digest('hex'));
      assert.ok(!JSON.stringify(row).includes(token), 'the token itself is not stored');
      assert.ok(pingUrl.endsWith(token));
    });

    it('refuses invalid bodies with the field in details and creates nothing', async () => {
      const org = await h.newOrg();
      const theirs = await h.newOrg('Other');
      const theirClient = await h.ok('POST', '/api/v1/clients', { key: theirs.key, body: { name: 'Theirs', slug: 'theirs' } }, 201);
      const labels64 = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, 'v']));
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ intervalSeconds: 60 }, '/name'],
        [{ name: '', intervalSeconds: 60 }, '/name'],
        [{ name: 'x' }, '/intervalSeconds'],
        [{ name: 'x', intervalSeconds: 0 }, '/intervalSeconds'],
        [{ name: 'x', intervalSeconds: 1.5 }, '/intervalSeconds'],
        [{ name: 'x', intervalSeconds: 60, graceSeconds: -1 }, '/graceSeconds'],
        [{ name: 'x', intervalSeconds: 60, severity: 'urgent' }, '/severity'],
        [{ name: 'x', intervalSeconds: 60, labels: { env: 1 } }, '/labels/env'],
        [{ name: 'x', intervalSeconds: 60, labels: labels64 }, '/labels'],
        [{ name: 'x', intervalSeconds: 60, clientId: theirClient.data.id }, '/clientId'],
        [{ name: 'x', intervalSeconds: 60, token: 'mine' }, ''],
      ];
      for (const [body, path] of bad) {
        const r = await h.req('POST', '/api/v1/heartbeats', { key: org.key, body });
        assert.equal(r.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${r.raw}`);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
        assert.ok(r.body.details.some((e: { path: string }) => e.path.startsWith(path)), `${path} in ${r.raw}`);
      }
      const hb = await create(org);
      for (const body of [{}, { intervalSeconds: 0 }, { paused: 'yes' }, { clientId: theirClient.data.id }]) {
        const r = await h.req('PATCH', `/api/v1/heartbeats/${hb.id}`, { key: org.key, body });
        assert.equal(r.status, 400, r.raw);
      }
      const list = await h.ok('GET', '/api/v1/heartbeats', { key: org.key });
      assert.equal(list.meta.total, 1);
      const { token, pingUrl, ...shown } = hb;
      assert.deepEqual(list.data[0], shown, 'the refused updates changed nothing');
    });

    it('a ping by GET or POST (any body, or none) marks it up and moves nextDueAt; PUT/PATCH edit it', async () => {
      const org = await h.newOrg();
      const client = await h.ok('POST', '/api/v1/clients', { key: org.key, body: { name: 'Acme', slug: 'acme' } }, 201);
      const hb = await create(org, { intervalSeconds: 300, graceSeconds: 30, labels: { team: 'ops' }, clientId: client.data.id, severity: 'high' });
      h.clock.advance(10_000);
      const first = await ping(hb);
      assert.equal(first.status, 200, first.raw);
      assert.deepEqual(first.body, { data: { state: 'up', lastPingAt: iso(h.clock.now()), nextDueAt: iso(h.clock.now() + 330_000) } });
      for (const [method, opts] of [
        ['POST', {}],
        ['POST', { rawBody: JSON.stringify({ job: 'backup', ok: true }), headers: { 'content-type': 'application/json' } }],
        ['POST', { rawBody: 'exit=0', headers: { 'content-type': 'application/x-www-form-urlencoded' } }],
        ['POST', { rawBody: 'not json', headers: { 'content-type': 'application/json' } }],
      ] as const) {
        h.clock.advance(1000);
        const r = await ping(hb, method, opts);
        assert.equal(r.status, 200, `${method} ${JSON.stringify(opts)}: ${r.raw}`);
      }
      const now = h.clock.now();
      const got = await get(org, hb.id);
      assert.equal(got.state, 'up');
      assert.equal(got.lastPingAt, iso(now));
      assert.equal(got.nextDueAt, iso(now + 330_000));

      const put = await h.req('PUT', `/api/v1/heartbeats/${hb.id}`, { key: org.key, body: { name: 'renamed', intervalSeconds: 600 } });
      assert.equal(put.status, 200, put.raw);
      assert.equal(put.body.data.name, 'renamed');
      assert.equal(put.body.data.nextDueAt, iso(now + 630_000), 'the new interval counts from the last ping');
      const both = await h.req('PATCH', `/api/v1/heartbeats/${hb.id}`, { key: org.key, body: { intervalSeconds: 31_536_000, graceSeconds: 31_536_000 } });
      assert.equal(both.status, 200, both.raw);
      assert.equal(both.body.data.nextDueAt, iso(now + 2 * 31_536_000_000), 'a year and a year of grace');
      h.clock.advance(5000);
      const patch = await h.req('PATCH', `/api/v1/heartbeats/${hb.id}`, { key: org.key, body: { paused: true, labels: {}, clientId: null } });
      assert.equal(patch.status, 200, patch.raw);
      assert.equal(patch.body.data.state, 'paused');
      assert.deepEqual(patch.body.data.labels, {});
      assert.equal(patch.body.data.clientId, null);
      assert.equal(patch.body.data.updatedAt, iso(h.clock.now()));
    });

    it('refuses unknown, deleted and rotated-away tokens with 401; the rotated token works at once', async () => {
      const org = await h.newOrg();
      const hb = await create(org);
      for (const token of ['hb_unknown', hb.token.slice(0, -1), `${hb.token}x`]) {
        const r = await h.req('GET', `/api/inbound/heartbeat/${token}`, { key: null });
        assert.equal(r.status, 401, r.raw);
        assert.equal(r.body.code, 'UNAUTHORIZED');
      }
      const rotated = await h.ok('POST', `/api/v1/heartbeats/${hb.id}/rotate-token`, { key: org.key });
      assert.notEqual(rotated.data.token, hb.token);
      assert.equal(rotated.data.pingUrl, `http://alertflow.test/api/inbound/heartbeat/${rotated.data.token}`);
      assert.equal((await ping(hb)).status, 401, 'the old token is refused');
      assert.equal((await ping(rotated.data)).status, 200);
      assert.equal((await h.req('DELETE', `/api/v1/heartbeats/${hb.id}`, { key: org.key })).status, 204);
      assert.equal((await ping(rotated.data, 'POST')).status, 401, 'a deleted heartbeat\'s token is refused');
      assert.equal((await h.req('GET', `/api/v1/heartbeats/${hb.id}`, { key: org.key })).status, 404);
    });

    it('a missed heartbeat opens exactly one alert through the pipeline; the next ping resolves it', async () => {
      const org = await h.newOrg();
      const client = await h.ok('POST', '/api/v1/clients', { key: org.key, body: { name: 'Acme', slug: 'acme' } }, 201);
      const hb = await create(org, { name: 'db-backup', intervalSeconds: 60, graceSeconds: 30, labels: { team: 'dba', heartbeat: 'spoofed' }, clientId: client.data.id });
      assert.equal((await ping(hb)).status, 200);
      h.clock.advance(90_000);
      assert.equal(await h.c.heartbeats.checkDue(), 0, 'not missed while within interval plus grace');
      h.clock.advance(1);
      // Two checkers at once (as two instances would): one alert.
      const raised = await Promise.all([h.c.heartbeats.checkDue(), h.c.heartbeats.checkDue()]);
      assert.equal(raised[0] + raised[1], 1);
      assert.equal(await h.c.heartbeats.checkDue(), 0, 'a down heartbeat is not raised again');
      const down = await get(org, hb.id);
      assert.equal(down.state, 'down');
      const alerts = await heartbeatAlerts(org);
      assert.equal(alerts.length, 1);
      const a = alerts[0] as Record<string, any>;
      assert.equal(a.title, 'Heartbeat db-backup missed');
      assert.equal(a.severity, 'critical');
      assert.equal(a.status, 'firing');
      assert.equal(a.source, 'heartbeat');
      assert.equal(a.integrationId, null);
      assert.equal(a.clientId, client.data.id);
      assert.equal(a.fingerprint, `heartbeat:${hb.id}`);
      assert.deepEqual(a.labels, { team: 'dba', heartbeat: 'db-backup' });
      assert.match(a.description, /expected every 1 min with 30 s of grace/);

      h.clock.advance(5000);
      const back = await ping(hb, 'POST');
      assert.equal(back.body.data.state, 'up');
      const resolved = (await h.ok('GET', `/api/v1/alerts/${a.id}`, { key: org.key })).data;
      assert.equal(resolved.status, 'resolved');
      assert.deepEqual(resolved.resolvedBy, { type: 'system', id: hb.id });
      assert.equal(resolved.resolvedAt, iso(h.clock.now()));

      // Missed again: a new alert, the resolved one stays resolved.
      h.clock.advance(91_000);
      assert.equal(await h.c.heartbeats.checkDue(), 1);
      const again = await heartbeatAlerts(org);
      assert.equal(again.length, 2);
      assert.equal(again.filter((x) => x.status === 'firing').length, 1);
      // Deleting the heartbeat resolves its open alert: nothing would ever ping it resolved.
      assert.equal((await h.req('DELETE', `/api/v1/heartbeats/${hb.id}`, { key: org.key })).status, 204);
      assert.deepEqual((await heartbeatAlerts(org)).map((x) => x.status), ['resolved', 'resolved']);
    });

    it('a never-pinged heartbeat is missed after interval plus grace from its creation; a paused one is not', async () => {
      const org = await h.newOrg();
      const silent = await create(org, { intervalSeconds: 120, graceSeconds: 0 });
      const paused = await create(org, { intervalSeconds: 120, graceSeconds: 0, paused: true });
      h.clock.advance(120_001);
      await h.c.heartbeats.checkDue();
      assert.equal((await get(org, silent.id)).state, 'down');
      assert.equal((await get(org, paused.id)).state, 'paused');
      assert.equal((await heartbeatAlerts(org)).length, 1);
      // Resuming gives a full interval from now, not an alert for the time it was paused.
      const resumed = await h.ok('PATCH', `/api/v1/heartbeats/${paused.id}`, { key: org.key, body: { paused: false } });
      assert.equal(resumed.data.state, 'new');
      assert.equal(resumed.data.nextDueAt, iso(h.clock.now() + 120_000));
      await h.c.heartbeats.checkDue();
      assert.equal((await heartbeatAlerts(org)).length, 1);
    });

    it('suppression windows and workflows apply to heartbeat alerts unchanged', async () => {
      const org = await h.newOrg();
      const now = h.clock.now();
      await h.ok('POST', '/api/v1/suppression', { key: org.key, body: {
        name: 'Backup maintenance', startsAt: iso(now), endsAt: iso(now + 3_600_000), matchers: [{ field: 'labels.heartbeat', op: 'eq', value: 'quiet-job' }],
      } }, 201);
      await h.ok('POST', '/api/v1/workflows', { key: org.key, body: {
        name: 'Page on missed heartbeats', trigger: 'alert.created', conditions: { field: 'source', op: 'eq', value: 'heartbeat' },
        actions: [{ type: 'webhook', url: `${web.base}/missed-${kind}`, secret: SECRET }],
      } }, 201);
      await create(org, { name: 'quiet-job', intervalSeconds: 60, graceSeconds: 0 });
      const loud = await create(org, { name: 'loud-job', intervalSeconds: 60, graceSeconds: 0 });
      h.clock.advance(60_001);
      assert.equal(await h.c.heartbeats.checkDue(), 2);
      const alerts = await heartbeatAlerts(org);
      const byName = new Map(alerts.map((a) => [a.labels.heartbeat, a]));
      assert.equal(byName.get('quiet-job')?.status, 'suppressed');
      assert.equal(byName.get('loud-job')?.status, 'firing');
      const hit = await eventually('the page for the missed heartbeat', () => web.hits.find((x) => x.path === `/missed-${kind}`));
      const body = JSON.parse(hit.body.toString('utf8'));
      assert.equal(body.alert.title, 'Heartbeat loud-job missed');
      assert.equal(body.alert.id, byName.get('loud-job')?.id);
      assert.equal(web.hits.filter((x) => x.path === `/missed-${kind}`).length, 1, 'the suppressed one pages nobody');
      assert.equal((await ping(loud)).status, 200);
    });
  });

  describe(`heartbeat pings are rate limited like ingest (${kind})`, () => {
    let h: Harness;
    before(async () => { h = await startHarness(kind, { RATE_LIMIT_INGEST_PER_MINUTE: '3', HEARTBEAT_CHECK_SECONDS: '3600' }); });
    after(() => h.close());

    it('answers 429 with Retry-After once the heartbeat spends its budget; another heartbeat is unaffected', async () => {
      const one = await h.ok('POST', '/api/v1/heartbeats', { body: { name: 'a', intervalSeconds: 60 } }, 201);
      const two = await h.ok('POST', '/api/v1/heartbeats', { body: { name: 'b', intervalSeconds: 60 } }, 201);
      for (let i = 0; i < 3; i++) assert.equal((await h.req('GET', `/api/inbound/heartbeat/${one.data.token}`, { key: null })).status, 200);
      const over = await h.req('POST', `/api/inbound/heartbeat/${one.data.token}`, { key: null });
      assert.equal(over.status, 429, over.raw);
      assert.equal(over.body.code, 'RATE_LIMITED');
      assert.ok(Number(over.headers['retry-after']) > 0);
      assert.equal((await h.req('GET', `/api/inbound/heartbeat/${two.data.token}`, { key: null })).status, 200);
    });
  });
}
