import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

eachStore('ingest', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  /** A fresh organization and integration, so each test sees only its own alerts. */
  async function fresh() {
    const org = await h.newOrg();
    const integ = await h.integration(org);
    const list = async (query = '') => (await h.req('GET', `/api/v1/alerts${query}`, { key: org.key })).body;
    return { org, integ, list };
  }

  it('stores a standard payload and answers 200 with the action only after it is stored', async () => {
    const { integ, list } = await fresh();
    const r = await h.ingest(integ.path, {
      title: 'Disk full', severity: 'CRITICAL', source: 'node-exporter', description: 'root fs at 99%',
      labels: { host: 'db1', env: 'prod' }, annotations: { runbook: 'https://runbooks/disk' }, extra_field: { any: 'thing' },
    });
    assert.equal(r.status, 200);
    const [out] = r.body.data.alerts;
    assert.equal(out.action, 'created');
    assert.equal(out.status, 'firing');
    const page = await list();
    assert.equal(page.meta.total, 1);
    const a = page.data[0];
    assert.equal(a.id, out.alertId);
    assert.equal(a.severity, 'critical');
    assert.deepEqual(a.labels, { host: 'db1', env: 'prod' });
    assert.equal(a.integrationId, integ.id);
    assert.equal(a.occurrences, 1);
    const other = await h.req('GET', `/api/v1/alerts/${a.id}`, { key: h.org.key });
    assert.equal(other.status, 404, 'another organization cannot read it');
  });

  it('keeps the raw payload, including unknown fields, for inspection', async () => {
    const { org, integ } = await fresh();
    const r = await h.ingest(integ.path, { title: 'x', severity: 'low', vendor: { id: 7 } });
    const d = await h.req('GET', `/api/v1/alerts/${r.body.data.alerts[0].alertId}`, { key: org.key });
    assert.deepEqual(d.body.data.payload, { title: 'x', severity: 'low', vendor: { id: 7 } });
  });

  it('deduplicates by fingerprint: one alert, occurrences grow, lastSeenAt moves', async () => {
    const { integ, list } = await fresh();
    const first = await h.ingest(integ.path, { title: 'CPU', severity: 'high', fingerprint: 'cpu-db1' });
    h.clock.advance(5000);
    const second = await h.ingest(integ.path, { title: 'CPU again', severity: 'high', fingerprint: 'cpu-db1' });
    assert.equal(second.body.data.alerts[0].action, 'deduplicated');
    assert.equal(second.body.data.alerts[0].alertId, first.body.data.alerts[0].alertId);
    const page = await list();
    assert.equal(page.data.length, 1);
    assert.equal(page.data[0].occurrences, 2);
    assert.equal(Date.parse(page.data[0].lastSeenAt) - Date.parse(page.data[0].createdAt), 5000);
  });

  it('treats dedup_key like fingerprint, and fingerprint wins when both are given', async () => {
    const { integ, list } = await fresh();
    await h.ingest(integ.path, { title: 'a', severity: 'low', dedup_key: 'k1' });
    const r = await h.ingest(integ.path, { title: 'b', severity: 'low', fingerprint: 'k1', dedup_key: 'other' });
    assert.equal(r.body.data.alerts[0].action, 'deduplicated');
    assert.equal((await list()).data.length, 1);
  });

  it('derives the fingerprint from title and source when none is given', async () => {
    const { integ, list } = await fresh();
    const a = await h.ingest(integ.path, { title: 'Same', severity: 'low', source: 's1' });
    const b = await h.ingest(integ.path, { title: 'Same', severity: 'low', source: 's1' });
    const c = await h.ingest(integ.path, { title: 'Same', severity: 'low', source: 's2' });
    assert.equal(b.body.data.alerts[0].action, 'deduplicated');
    assert.equal(c.body.data.alerts[0].action, 'created');
    assert.equal(a.body.data.alerts[0].fingerprint, b.body.data.alerts[0].fingerprint);
    assert.equal((await list()).meta.total, 2);
  });

  it('scopes fingerprints to the organization', async () => {
    const one = await fresh();
    const two = await fresh();
    await h.ingest(one.integ.path, { title: 't', severity: 'low', fingerprint: 'shared' });
    const r = await h.ingest(two.integ.path, { title: 't', severity: 'low', fingerprint: 'shared' });
    assert.equal(r.body.data.alerts[0].action, 'created');
    assert.equal((await one.list()).meta.total, 1);
    assert.equal((await two.list()).meta.total, 1);
  });

  it('auto-resolves the open alert on a resolved payload, without severity', async () => {
    const { integ, list } = await fresh();
    await h.ingest(integ.path, { title: 'Down', severity: 'critical', fingerprint: 'svc-down' });
    const r = await h.ingest(integ.path, { fingerprint: 'svc-down', status: 'RESOLVED' });
    assert.equal(r.status, 200);
    assert.equal(r.body.data.alerts[0].action, 'resolved');
    const a = (await list()).data[0];
    assert.equal(a.status, 'resolved');
    assert.deepEqual(a.resolvedBy, { type: 'integration', id: integ.id });
    assert.ok(a.resolvedAt);
  });

  it('resolves by title (and source) when the alert was fingerprinted from them', async () => {
    const { integ, list } = await fresh();
    await h.ingest(integ.path, { title: 'Queue backlog', severity: 'medium', source: 'rabbit' });
    const r = await h.ingest(integ.path, { title: 'Queue backlog', source: 'rabbit', status: 'resolved' });
    assert.equal(r.body.data.alerts[0].action, 'resolved');
    assert.equal((await list('?status=resolved')).meta.total, 1);
  });

  it('ignores a resolved payload with no open alert and stores nothing', async () => {
    const { integ, list } = await fresh();
    const r = await h.ingest(integ.path, { fingerprint: 'never-fired', status: 'resolved' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.alerts[0], { alertId: null, fingerprint: 'never-fired', status: null, action: 'ignored' });
    assert.equal((await list()).meta.total, 0);
  });

  it('opens a new alert when a resolved fingerprint fires again', async () => {
    const { integ, list } = await fresh();
    const first = await h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: 'flap' });
    await h.ingest(integ.path, { fingerprint: 'flap', status: 'resolved' });
    const again = await h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: 'flap' });
    assert.equal(again.body.data.alerts[0].action, 'created');
    assert.notEqual(again.body.data.alerts[0].alertId, first.body.data.alerts[0].alertId);
    assert.equal((await list()).meta.total, 2);
  });

  it('keeps an acknowledged alert acknowledged when it fires again', async () => {
    const { org, integ } = await fresh();
    const r = await h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: 'ack-me' });
    const id = r.body.data.alerts[0].alertId;
    await h.req('POST', `/api/v1/alerts/${id}/acknowledge`, { key: org.key });
    const again = await h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: 'ack-me' });
    assert.equal(again.body.data.alerts[0].action, 'deduplicated');
    assert.equal(again.body.data.alerts[0].status, 'acknowledged');
  });

  it('moves an open alert on acknowledged / suppressed payloads, or creates one in that status', async () => {
    const { org, integ } = await fresh();
    await h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: 'f1' });
    const acked = await h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: 'f1', status: 'acknowledged' });
    assert.equal(acked.body.data.alerts[0].action, 'acknowledged');
    const a = await h.req('GET', `/api/v1/alerts/${acked.body.data.alerts[0].alertId}`, { key: org.key });
    assert.equal(a.body.data.status, 'acknowledged');
    assert.deepEqual(a.body.data.acknowledgedBy, { type: 'integration', id: integ.id });
    const sup = await h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: 'f1', status: 'suppressed' });
    assert.equal(sup.body.data.alerts[0].action, 'suppressed');
    assert.equal(sup.body.data.alerts[0].status, 'suppressed');
    const created = await h.ingest(integ.path, { title: 'n', severity: 'low', fingerprint: 'f2', status: 'suppressed' });
    assert.equal(created.body.data.alerts[0].action, 'created');
    assert.equal(created.body.data.alerts[0].status, 'suppressed');
  });

  it('rejects payloads missing required fields with details, storing nothing', async () => {
    const { integ, list } = await fresh();
    const cases: Array<[unknown, string[]]> = [
      [{ severity: 'high' }, ['/title']],
      [{ title: 'x' }, ['/severity']],
      [{ title: 'x', severity: 'urgent' }, ['/severity']],
      [{ title: 'x', severity: 'low', status: 'open' }, ['/status']],
      [{ status: 'resolved' }, ['/fingerprint']],
      [{ title: 'x', severity: 'low', labels: { nested: { a: 1 } } }, ['/labels/nested']],
      [{ title: 'x', severity: 'low', labels: ['a'] }, ['/labels']],
      [['not', 'an', 'object'], ['']],
      [{ title: 42, severity: 'low' }, ['/title']],
    ];
    for (const [payload, paths] of cases) {
      const r = await h.ingest(integ.path, payload);
      assert.equal(r.status, 400, JSON.stringify(payload));
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(r.body.details.map((d: { path: string }) => d.path), paths, JSON.stringify(payload));
    }
    assert.equal((await list()).meta.total, 0);
  });

  it('answers 401 for an unknown or disabled token and counts nothing', async () => {
    const { org, integ, list } = await fresh();
    const unknown = await h.ingest('/api/inbound/webhook/not-a-real-token', { title: 't', severity: 'low' });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.code, 'UNAUTHORIZED');
    await h.req('PUT', `/api/v1/integrations/${integ.id}`, { key: org.key, body: { enabled: false } });
    const disabled = await h.ingest(integ.path, { title: 't', severity: 'low' });
    assert.equal(disabled.status, 401);
    assert.equal(disabled.headers['x-ratelimit-limit'], undefined, 'no budget is shown for an unknown token');
    assert.equal((await list()).meta.total, 0);
  });

  it('50 parallel identical firing payloads give exactly one alert with 50 occurrences', async () => {
    const { integ, list } = await fresh();
    const results = await Promise.all(Array.from({ length: 50 }, () =>
      h.ingest(integ.path, { title: 'Storm', severity: 'critical', fingerprint: 'storm' })));
    assert.ok(results.every((r) => r.status === 200));
    const actions = results.map((r) => r.body.data.alerts[0].action);
    assert.equal(actions.filter((a) => a === 'created').length, 1);
    assert.equal(actions.filter((a) => a === 'deduplicated').length, 49);
    const page = await list();
    assert.equal(page.meta.total, 1);
    assert.equal(page.data[0].occurrences, 50);
  });
});
