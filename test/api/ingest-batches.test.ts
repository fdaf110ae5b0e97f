import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

/** Payloads of many alerts (Alertmanager's groups) arriving at once: each stored whole, none refused. */
eachStore('concurrent multi-alert payloads', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  it('stores every alert of 20 concurrent Alertmanager payloads of 10 new alerts each', async () => {
    const integ = await h.integration(h.org, { name: 'am', preset: 'alertmanager' });
    const payload = (p: number) => ({
      status: 'firing',
      alerts: Array.from({ length: 10 }, (_, i) => ({
        status: 'firing', fingerprint: `batch-${p}-${i}`,
        labels: { alertname: 'HighLatency', instance: `web-${i}`, severity: 'warning' }, annotations: {},
      })),
    });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, p) => h.ingest(integ.path, payload(p))));
    assert.deepEqual(answers.map((a) => a.status), Array(20).fill(200));
    for (const a of answers) assert.deepEqual(a.body.data.alerts.map((x: { action: string }) => x.action), Array(10).fill('created'));
    const list = await h.req('GET', '/api/v1/alerts?status=firing&limit=1');
    assert.equal(list.body.meta.total, 200);
  });

  it('shows a payload written over several turns of the event loop whole or not at all', async () => {
    const integ = await h.integration(h.org, { name: 'am-big', preset: 'alertmanager' });
    const firing = async () => (await h.req('GET', '/api/v1/alerts?status=firing&limit=1')).body.meta.total as number;
    const before = await firing();
    const alerts = Array.from({ length: 400 }, (_, i) => ({
      status: 'firing', fingerprint: `big-${i}`, labels: { alertname: 'Big', instance: `web-${i}` }, annotations: {},
    }));
    let done = false;
    const seen: number[] = [];
    const reader = (async () => {
      // In-process requests on SQLite can resolve without leaving the microtask queue: let the loop turn.
      while (!done) {
        seen.push(await firing());
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const answer = await h.ingest(integ.path, { status: 'firing', alerts });
    done = true;
    await reader;
    assert.equal(answer.status, 200);
    assert.ok(seen.length > 0);
    for (const n of seen) assert.ok(n === before || n === before + 400, `a read saw ${n - before} of the 400 alerts`);
    assert.equal(await firing(), before + 400);
  });
});
