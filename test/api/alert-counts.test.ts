import { sql, type Kysely } from 'kysely';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrations/index.ts';
import type { DB } from '../../src/db/schema.ts';
import { newId } from '../../src/lib/ids.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { createTestStore, STORE_KINDS } from '../support/stores.ts';

const FILTERS = ['', 'status=firing', 'status=acknowledged', 'status=suppressed', 'status=resolved', 'status=firing,acknowledged,suppressed'];
const STATUSES = ['firing', 'acknowledged', 'suppressed', 'resolved'];

/** A stored alert as any writer other than ingest (a heartbeat, an import) could insert it. */
const alertRow = (orgId: string, status: string, fingerprint: string) => ({
  id: newId('alt'), org_id: orgId, fingerprint, title: fingerprint, severity: 'low', status, labels: '{}', annotations: '{}',
  payload: '{}', occurrences: 1, last_seen_at: 1, created_at: 1, updated_at: 1,
});

/** The counters, summed over shards, against a real count, for every organization and status. */
async function assertCountersExact(db: Kysely<DB>, step: string): Promise<void> {
  const key = (r: { org_id: string; status: string; n: unknown }) => `${r.org_id} ${r.status} ${Number(r.n)}`;
  const counted = await db.selectFrom('alert_counts').select(['org_id', 'status', (eb) => eb.fn.sum<number>('n').as('n')])
    .groupBy(['org_id', 'status']).having((eb) => eb.fn.sum('n'), '<>', 0).execute();
  const real = await db.selectFrom('alerts').select(['org_id', 'status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy(['org_id', 'status']).execute();
  assert.deepEqual(counted.map(key).sort(), real.map(key).sort(), `after ${step}`);
}

for (const kind of STORE_KINDS) {
  describe(`meta.total from the trigger-kept counters (${kind})`, () => {
    let h: Harness;
    before(async () => { h = await startHarness(kind); });
    after(() => h.close());

    /** `meta.total` of the organization's list under every status filter against a real count. */
    const totalsExact = async (org: Org, step: string) => {
      for (const f of FILTERS) {
        const statuses = f ? f.slice('status='.length).split(',') : null;
        let q = h.c.store.db.selectFrom('alerts').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', org.id);
        if (statuses) q = q.where('status', 'in', statuses);
        const expected = Number((await q.executeTakeFirstOrThrow()).n);
        const r = await h.req('GET', `/api/v1/alerts?${f}`, { key: org.key });
        assert.equal(r.body.meta.total, expected, `after ${step}, filter "${f}"`);
      }
    };
    /** Every alert of the organization got exactly one `alert.created` live event. */
    const createdOnceLive = async (org: Org) => {
      const ids = (await h.c.store.db.selectFrom('alerts').select('id').where('org_id', '=', org.id).execute()).map((r) => r.id).sort();
      const live = await h.c.store.db.selectFrom('live_events').select('entity_id').where('org_id', '=', org.id).where('type', '=', 'alert.created').execute();
      assert.deepEqual(live.map((r) => r.entity_id).sort(), ids);
    };

    it('equals a real count for every status filter after every kind of change', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      const other = await h.newOrg('Neighbour');
      const otherInteg = await h.integration(other);
      const checkAll = (step: string) => totalsExact(org, step);
      const send = (payload: object) => h.ingest(integ.path, payload);

      await checkAll('nothing');
      for (let i = 0; i < 6; i++) await send({ title: `a${i}`, severity: 'high', fingerprint: `f${i}` });
      await h.ingest(otherInteg.path, { title: 'theirs', severity: 'low' });
      await checkAll('six new alerts and another organization\'s');
      await send({ title: 'a0', severity: 'high', fingerprint: 'f0' });
      await checkAll('a duplicate');
      await send({ title: 'a1', severity: 'high', fingerprint: 'f1', status: 'acknowledged' });
      await send({ title: 'a1', severity: 'high', fingerprint: 'f1', status: 'acknowledged' });
      await send({ title: 'a2', severity: 'high', fingerprint: 'f2', status: 'suppressed' });
      await send({ title: 'a2', severity: 'high', fingerprint: 'f2', status: 'acknowledged' });
      await checkAll('status moves by payload, including a repeat');
      await send({ fingerprint: 'f3', status: 'resolved' });
      await send({ fingerprint: 'never', status: 'resolved' });
      await checkAll('an auto-resolve and an ignored resolve');
      const list = (await h.req('GET', '/api/v1/alerts?status=firing', { key: org.key })).body.data as Array<{ id: string }>;
      await h.req('POST', `/api/v1/alerts/${list[0]?.id}/acknowledge`, { key: org.key });
      await h.req('POST', '/api/v1/alerts/bulk', { key: org.key, body: { action: 'resolve', ids: list.map((a) => a.id) } });
      await checkAll('acknowledge and bulk resolve through the API');
      await send({ title: 'a4', severity: 'high', fingerprint: 'f4' });
      await checkAll('a resolved fingerprint firing again');
      await h.c.store.db.deleteFrom('alerts').where('org_id', '=', org.id).where('status', '=', 'resolved').execute();
      await checkAll('deleting alerts');
    });

    it('stays exact under concurrent ingest of new and repeated alerts', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      await Promise.all(Array.from({ length: 60 }, (_, i) =>
        h.ingest(integ.path, { title: 't', severity: 'low', fingerprint: `c${i % 20}`, ...(i % 7 === 0 && { status: 'acknowledged' }) })));
      const rows = await h.c.store.db.selectFrom('alerts').select(['status']).where('org_id', '=', org.id).execute();
      const r = await h.req('GET', '/api/v1/alerts?status=firing,acknowledged', { key: org.key });
      assert.equal(rows.length, 20);
      assert.equal(r.body.meta.total, 20);
      const firing = (await h.req('GET', '/api/v1/alerts?status=firing', { key: org.key })).body.meta.total;
      assert.equal(firing, rows.filter((x) => x.status === 'firing').length);
    });

    // PostgreSQL counts a statement's new alerts once per organization and status (migration 0018).
    it('stays exact when one statement inserts alerts of several organizations and statuses', async () => {
      const a = await h.newOrg();
      const b = await h.newOrg('Neighbour');
      await h.c.store.db.insertInto('alerts')
        .values(Array.from({ length: 23 }, (_, i) => alertRow(i % 3 === 0 ? b.id : a.id, STATUSES[i % 4] as string, `m${i}`))).execute();
      for (const org of [a, b]) {
        await totalsExact(org, 'a multi-row insert');
        await createdOnceLive(org);
      }
      await assertCountersExact(h.c.store.db, 'a multi-row insert');
    });

    it('stays exact when concurrent ingest of two organizations is committed together', async () => {
      const orgs = [await h.newOrg(), await h.newOrg('Neighbour')];
      const paths = await Promise.all(orgs.map(async (o) => (await h.integration(o)).path));
      const sent = await Promise.all(Array.from({ length: 80 }, (_, i) =>
        h.ingest(paths[i % 2] as string, { title: 't', severity: 'low', fingerprint: `g${i % 30}`, ...(i % 9 === 0 && { status: 'suppressed' }) })));
      assert.deepEqual(new Set(sent.map((r) => r.status)), new Set([200]));
      for (const org of orgs) {
        await totalsExact(org, 'concurrent ingest');
        await createdOnceLive(org);
      }
    });
  });
}

describe('migration 0018 on a PostgreSQL database that already has alerts', () => {
  it('keeps the counters exact for alerts written before and after it, through inserts, status moves and deletes', async () => {
    const test = await createTestStore('postgres');
    const store = await createStore(test.config);
    try {
      const db = store.db;
      await migrate(store, '0017_alert_fingerprint_indexes');
      const orgs = ['org_a', 'org_b'];
      await db.insertInto('orgs').values(orgs.map((id) => ({ id, name: id, created_at: 1 }))).execute();
      const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => alertRow(orgs[i % 2] as string, STATUSES[i % 4] as string, `${tag}${i}`));
      await db.insertInto('alerts').values(rows(10, 'before')).execute();
      await assertCountersExact(db, 'inserts through the row triggers');

      await migrate(store);
      const triggers = await sql<{ tgname: string }>`select tgname from pg_trigger where tgrelid = 'alerts'::regclass and not tgisinternal`.execute(db);
      assert.deepEqual(triggers.rows.map((r) => r.tgname).sort(),
        ['alerts_count_delete', 'alerts_count_update', 'alerts_event_update', 'alerts_inserted', 'alerts_live_update']);
      await db.insertInto('alerts').values(rows(13, 'after')).execute();
      await assertCountersExact(db, 'inserts through the statement trigger');
      await db.updateTable('alerts').set({ status: 'resolved' }).where('status', '=', 'firing').execute();
      await db.updateTable('alerts').set({ status: 'acknowledged' }).where('fingerprint', 'in', ['before2', 'after6']).execute();
      await assertCountersExact(db, 'status moves');
      await db.deleteFrom('alerts').where('fingerprint', 'like', 'before%').where('status', '=', 'resolved').execute();
      await assertCountersExact(db, 'deletes');
      const live = await db.selectFrom('live_events').select((eb) => eb.fn.countAll<number>().as('n')).where('type', '=', 'alert.created').executeTakeFirstOrThrow();
      assert.equal(Number(live.n), 23);
    } finally {
      await store.close();
      await test.drop();
    }
  });
});
