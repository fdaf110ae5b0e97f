import { sql, type Kysely } from 'kysely';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createStore } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrations/index.ts';
import type { DB } from '../../src/db/schema.ts';
import { newId } from '../../src/lib/ids.ts';
import { eventually } from '../support/eventually.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { createTestStore, eachStore, STORE_KINDS } from '../support/stores.ts';

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

// SQLite's ingest writes on the main thread by default, or on a thread of its own (INGEST_WRITER_THREAD).
const VARIANTS = [...STORE_KINDS.map((kind) => ({ kind, env: {}, name: kind })), { kind: 'sqlite' as const, env: { INGEST_WRITER_THREAD: 'true' }, name: 'sqlite, writer thread' }];

for (const { kind, env, name } of VARIANTS) {
  describe(`meta.total from the counters the alert writer keeps (${name})`, () => {
    let h: Harness;
    before(async () => { h = await startHarness(kind, env); });
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
      // A window suppresses what arrives, and releases it when deleted.
      const window = await h.ok('POST', '/api/v1/suppression', { key: org.key, body: {
        name: 'w', startsAt: new Date(h.clock.now() - 60_000).toISOString(), endsAt: new Date(h.clock.now() + 3_600_000).toISOString(), matchers: [] } }, 201);
      await send({ title: 'a5', severity: 'high', fingerprint: 'f5' });
      await checkAll('a new alert stored suppressed');
      await h.ok('DELETE', `/api/v1/suppression/${window.data.id}`, { key: org.key }, 204);
      await checkAll('suppressed alerts released to firing');
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

    it('stays exact when concurrent ingest of two organizations is committed together; each new alert has one live event, and one workflow run where a workflow is enabled', async () => {
      const orgs = [await h.newOrg(), await h.newOrg('Neighbour')];
      const workflow = await h.ok('POST', '/api/v1/workflows', { key: orgs[0]?.key, body: { name: 'w', trigger: 'alert.created', actions: [{ type: 'add_labels', labels: { seen: 'yes' } }] } }, 201);
      const paths = await Promise.all(orgs.map(async (o) => (await h.integration(o)).path));
      // The suppressed payloads have fingerprints of their own: one sharing a fingerprint with firing ones could come
      // second, and turn an alert that was created firing (and ran the workflow) suppressed.
      const sent = await Promise.all(Array.from({ length: 80 }, (_, i) =>
        h.ingest(paths[i % 2] as string, { title: 't', severity: 'low', ...(i % 9 === 0 ? { fingerprint: `s${i}`, status: 'suppressed' } : { fingerprint: `g${i % 30}` }) })));
      assert.deepEqual(new Set(sent.map((r) => r.status)), new Set([200]));
      for (const org of orgs) {
        await totalsExact(org, 'concurrent ingest');
        await createdOnceLive(org);
      }
      // Stored suppressed, an alert is no event for workflows; every other new alert of the first organization is one.
      const created = (await h.c.store.db.selectFrom('alerts').select('id').where('org_id', '=', orgs[0]?.id as string).where('status', '!=', 'suppressed').execute()).map((r) => r.id).sort();
      const runs = await eventually('a run for every new alert', async () => {
        const r = (await h.ok('GET', `/api/v1/workflows/${workflow.data.id}/runs?limit=100`, { key: orgs[0]?.key })).data as Array<{ alertId: string }>;
        return r.length >= created.length ? r : undefined;
      });
      assert.deepEqual(runs.map((r) => r.alertId).sort(), created);
    });
  });
}

describe('migrations 0018 and 0026 on a PostgreSQL database that already has alerts', () => {
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

      await migrate(store, '0018_new_alert_writes');
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
      // The triggers go (migration 0026), the counters they kept stay exact: the alert writer carries on from them.
      await migrate(store);
      await assertCountersExact(db, 'the triggers dropped');
    } finally {
      await store.close();
      await test.drop();
    }
  });
});

eachStore('no business rule in the database', { together: true }, (kind) => {
  it('a freshly migrated store holds no trigger: what follows from a change is written by the code that makes it', async () => {
    const test = await createTestStore(kind);
    const store = await createStore(test.config);
    try {
      await migrate(store);
      const triggers = kind === 'sqlite'
        ? await sql<{ name: string }>`select name from sqlite_master where type = 'trigger'`.execute(store.db)
        : await sql<{ name: string }>`select tgname as name from pg_trigger where not tgisinternal`.execute(store.db);
      assert.deepEqual(triggers.rows.map((r) => r.name), []);
      if (kind === 'postgres') {
        const functions = await sql<{ name: string }>`select proname as name from pg_proc where proname like 'alertflow%'`.execute(store.db);
        assert.deepEqual(functions.rows.map((r) => r.name), []);
      }
    } finally {
      await store.close();
      await test.drop();
    }
  });
});
