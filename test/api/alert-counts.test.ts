import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { STORE_KINDS } from '../support/stores.ts';

const FILTERS = ['', 'status=firing', 'status=acknowledged', 'status=suppressed', 'status=resolved', 'status=firing,acknowledged,suppressed'];

for (const kind of STORE_KINDS) {
  describe(`meta.total from the trigger-kept counters (${kind})`, () => {
    let h: Harness;
    before(async () => { h = await startHarness(kind); });
    after(() => h.close());

    it('equals a real count for every status filter after every kind of change', async () => {
      const org = await h.newOrg();
      const integ = await h.integration(org);
      const other = await h.newOrg('Neighbour');
      const otherInteg = await h.integration(other);
      const checkAll = async (step: string) => {
        for (const f of FILTERS) {
          const statuses = f ? f.slice('status='.length).split(',') : null;
          let q = h.c.store.db.selectFrom('alerts').select((eb) => eb.fn.countAll().as('n')).where('org_id', '=', org.id);
          if (statuses) q = q.where('status', 'in', statuses);
          const expected = Number((await q.executeTakeFirstOrThrow()).n);
          const r = await h.req('GET', `/api/v1/alerts?${f}`, { key: org.key });
          assert.equal(r.body.meta.total, expected, `after ${step}, filter "${f}"`);
        }
      };
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
  });
}
