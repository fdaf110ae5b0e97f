import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

eachStore('JSON bodies are typed strictly, query strings are coerced', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  it('refuses a body value of the wrong JSON type instead of converting it, and stores nothing', async () => {
    const cases: Array<[string, string, unknown, string]> = [
      ['POST', '/api/v1/integrations', { name: 123 }, '/name'],
      ['POST', '/api/v1/integrations', { name: ['x'] }, '/name'],
      ['POST', '/api/v1/integrations', { name: 'x', enabled: 'false' }, '/enabled'],
      ['POST', '/api/v1/alerts/bulk', { action: 'resolve', ids: 'abc' }, '/ids'],
      ['POST', '/api/v1/api-keys', { name: 'k', scopes: 'alerts:read' }, '/scopes'],
    ];
    for (const [method, url, body, path] of cases) {
      const r = await h.req(method, url, { body });
      assert.equal(r.status, 400, `${url} ${JSON.stringify(body)}`);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.ok(r.body.details.some((d: { path: string }) => d.path === path), r.raw);
    }
    assert.equal((await h.req('GET', '/api/v1/integrations')).body.meta.total, 0);
    assert.equal((await h.req('GET', '/api/v1/api-keys')).body.meta.total, 1, 'only the owner key');
  });

  it('reads numbers and repeated parameters from the query string', async () => {
    const r = await h.req('GET', '/api/v1/alerts?limit=3&label=a=1');
    assert.equal(r.status, 200);
    assert.equal(r.body.meta.limit, 3);
  });
});
