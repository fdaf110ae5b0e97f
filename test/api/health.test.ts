import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

eachStore('health endpoints', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  it('/healthz says the process is up and /readyz that the store answers, without a key', async () => {
    assert.deepEqual((await h.req('GET', '/healthz', { key: null })).body, { status: 'ok' });
    const ready = await h.req('GET', '/readyz', { key: null });
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ready' });
  });

  it('/readyz answers 503 once the store is unreachable, while /healthz stays 200', async () => {
    await h.c.store.close();
    const ready = await h.req('GET', '/readyz', { key: null });
    assert.equal(ready.status, 503);
    assert.deepEqual(ready.body, { status: 'unavailable' });
    assert.equal((await h.req('GET', '/healthz', { key: null })).status, 200);
  });
});
