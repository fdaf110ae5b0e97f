import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line (`name{labels} value`), or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics without METRICS_TOKEN', () => {
  let h: Harness;
  before(async () => { h = await startHarness('sqlite'); });
  after(() => h.close());

  it('does not exist', async () => {
    const r = await h.req('GET', '/metrics', { key: null });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'NOT_FOUND');
  });
});

eachStore('GET /metrics', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind, { METRICS_TOKEN: TOKEN }); });
  after(() => h.close());

  const scrape = async () => {
    const r = await h.req('GET', '/metrics', { key: TOKEN });
    assert.equal(r.status, 200, r.raw);
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    return r.raw;
  };

  it('needs the bearer token: none, a wrong one and an API key are 401 in the envelope', async () => {
    for (const key of [null, `${TOKEN}x`, h.org.key]) {
      const r = await h.req('GET', '/metrics', { key });
      assert.equal(r.status, 401, String(key));
      assert.equal(r.body.code, 'UNAUTHORIZED');
      assert.doesNotMatch(r.raw, /alertflow_/);
    }
  });

  it('counts ingest requests and alerts by outcome, HTTP requests by route pattern, and shows queues and the event loop', async () => {
    const integ = await h.integration();
    const before = await scrape();
    const created = sample(before, 'alertflow_ingest_alerts_total{outcome="created"}') ?? 0;
    await h.ingestAlert(integ.path, { title: 'disk', severity: 'high', fingerprint: 'm1' });
    await h.ingestAlert(integ.path, { title: 'disk', severity: 'high', fingerprint: 'm1' });
    await h.ingestAlert(integ.path, { title: 'disk', status: 'resolved', fingerprint: 'm1' });
    assert.equal((await h.ingest(integ.path, { title: 42 })).status, 400);

    const text = await scrape();
    assert.equal(sample(text, 'alertflow_ingest_alerts_total{outcome="created"}'), created + 1);
    assert.equal(sample(text, 'alertflow_ingest_alerts_total{outcome="deduplicated"}'), 1);
    assert.equal(sample(text, 'alertflow_ingest_alerts_total{outcome="resolved"}'), 1);
    assert.equal(sample(text, 'alertflow_ingest_requests_total{status="200"}'), 3);
    assert.equal(sample(text, 'alertflow_ingest_requests_total{status="400"}'), 1);
    assert.equal(sample(text, 'alertflow_http_request_duration_seconds_count{method="POST",route="/api/inbound/webhook/:token",status="200"}'), 3);
    assert.ok(!text.includes(integ.token), 'the ingest token is never a label');
    for (const name of ['alertflow_nodejs_eventloop_lag_p50_seconds', 'alertflow_nodejs_eventloop_lag_p99_seconds', 'alertflow_nodejs_eventloop_lag_max_seconds']) {
      assert.ok(sample(text, name) !== undefined, `${name} missing`);
    }
    assert.match(text, /^# TYPE alertflow_queue_depth gauge$/m);
    assert.match(text, /^# TYPE alertflow_queue_oldest_job_age_seconds gauge$/m);
    assert.match(text, /^# TYPE alertflow_delivery_attempt_duration_seconds histogram$/m);
    if (kind === 'postgres') assert.ok((sample(text, 'alertflow_store_pool_connections{state="total"}') ?? 0) >= 1, 'PostgreSQL pool usage');
  });
});
