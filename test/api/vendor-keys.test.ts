import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrations/index.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { createTestStore, STORE_KINDS } from '../support/stores.ts';

const ROUTING_KEY = /^[0-9a-f]{32}$/;
const GENIE_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

for (const kind of STORE_KINDS) {
  describe(`integration keys for PagerDuty- and Opsgenie-style senders (${kind})`, () => {
    let h: Harness;
    before(async () => { h = await startHarness(kind); });
    after(() => h.close());

    it('every integration gets its own routing key and GenieKey in the shapes those senders check, and the URLs to use them at', async () => {
      const org = await h.newOrg();
      const a = (await h.req('POST', '/api/v1/integrations', { key: org.key, body: { name: 'a' } })).body.data;
      const b = (await h.req('POST', '/api/v1/integrations', { key: org.key, body: { name: 'b' } })).body.data;
      for (const d of [a, b]) {
        assert.match(d.routingKey, ROUTING_KEY);
        assert.match(d.genieKey, GENIE_KEY);
        assert.equal(d.pagerdutyUrl, 'http://alertflow.test/api/inbound/pagerduty/v2/enqueue');
        assert.equal(d.opsgenieApiUrl, 'http://alertflow.test/api/inbound/opsgenie/');
      }
      assert.notEqual(a.routingKey, b.routingKey);
      assert.notEqual(a.genieKey, b.genieKey);
    });

    it('readers without integrations:write see them masked like the token; rotation replaces token and keys together', async () => {
      const org = await h.newOrg();
      const d = (await h.req('POST', '/api/v1/integrations', { key: org.key, body: { name: 'masked' } })).body.data;
      const ro = (await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'ro', scopes: ['integrations:read'] } })).body.data.key as string;
      const seen = await h.req('GET', `/api/v1/integrations/${d.id}`, { key: ro });
      assert.equal(seen.body.data.routingKey, `…${d.routingKey.slice(-4)}`);
      assert.equal(seen.body.data.genieKey, `…${d.genieKey.slice(-4)}`);
      const listed = await h.req('GET', '/api/v1/integrations', { key: ro });
      for (const raw of [seen.raw, listed.raw]) assert.ok(!raw.includes(d.routingKey) && !raw.includes(d.genieKey), 'no key in a reader\'s answer');
      assert.equal((await h.req('GET', `/api/v1/integrations/${d.id}`, { key: org.key })).body.data.routingKey, d.routingKey, 'a writer sees it whole');

      const rotated = (await h.req('POST', `/api/v1/integrations/${d.id}/rotate-token`, { key: org.key })).body.data;
      assert.notEqual(rotated.token, d.token);
      assert.notEqual(rotated.routingKey, d.routingKey);
      assert.notEqual(rotated.genieKey, d.genieKey);
      assert.match(rotated.routingKey, ROUTING_KEY);
      assert.match(rotated.genieKey, GENIE_KEY);
    });
  });

  describe(`migration 0019 on a ${kind} database that already has integrations`, () => {
    it('gives each existing integration distinct keys, stores their digests, and refuses a duplicate', async () => {
      const test = await createTestStore(kind);
      const store = await createStore(test.config);
      try {
        const db = store.db;
        await migrate(store, '0018_new_alert_writes');
        await db.insertInto('orgs').values({ id: 'org_a', name: 'a', created_at: 1 }).execute();
        const row = (id: string) => ({ id, org_id: 'org_a', name: id, preset: 'standard', enabled: 1, token: `tok_${id}`, mapping: null, client_id: null, created_at: 1, updated_at: 1 });
        await db.insertInto('integrations').values([row('int_1'), row('int_2')] as never).execute();
        await migrate(store);
        const rows = await db.selectFrom('integrations').selectAll().orderBy('id').execute();
        assert.equal(rows.length, 2);
        for (const r of rows) {
          assert.match(r.routing_key, ROUTING_KEY);
          assert.match(r.genie_key, GENIE_KEY);
          assert.equal(r.routing_key_digest, sha256(r.routing_key));
          assert.equal(r.genie_key_digest, sha256(r.genie_key));
        }
        assert.notEqual(rows[0]?.routing_key, rows[1]?.routing_key);
        await assert.rejects(
          db.updateTable('integrations').set({ routing_key_digest: rows[0]?.routing_key_digest as string }).where('id', '=', 'int_2').execute(),
          'the database refuses two integrations with one routing key',
        );
      } finally {
        await store.close();
        await test.drop();
      }
    });
  });
}
