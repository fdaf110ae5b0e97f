import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

/** `?a=1&b=2` from pairs, so repeated keys (`label`) and special characters are encoded as a client would. */
const qs = (pairs: Array<[string, string]>): string => (pairs.length ? `?${new URLSearchParams(pairs).toString()}` : '');

eachStore('alerts API', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  /** A fresh organization with one integration; `fire` ingests and moves the clock so creation times differ. */
  async function fresh() {
    const org = await h.newOrg();
    const integ = await h.integration(org);
    const fire = async (payload: Record<string, unknown>, path = integ.path): Promise<string> => {
      const r = await h.ingest(path, { severity: 'low', ...payload });
      assert.equal(r.status, 200, r.raw);
      h.clock.advance(1000);
      return r.body.data.alerts[0].alertId as string;
    };
    const list = async (pairs: Array<[string, string]> = [], key = org.key) => {
      const r = await h.req('GET', `/api/v1/alerts${qs(pairs)}`, { key });
      assert.equal(r.status, 200, r.raw);
      return r.body as { data: Array<Record<string, any>>; meta: Record<string, any> };
    };
    const ids = async (pairs: Array<[string, string]>) => (await list(pairs)).data.map((a) => a.id as string);
    return { org, integ, fire, list, ids };
  }

  async function keyIdOf(org: Org): Promise<string> {
    const r = await h.req('GET', '/api/v1/api-keys', { key: org.key });
    assert.equal(r.body.data.length, 1, 'a fresh organization has exactly its owner key');
    return r.body.data[0].id;
  }

  describe('filters', () => {
    // One organization with a varied set of alerts; each filter is checked against the exact expected ids.
    let t: Awaited<ReturnType<typeof fresh>>;
    let a: Record<string, string>;
    let integ2: string;
    let created: Record<string, number>;

    before(async () => {
      t = await fresh();
      const second = await h.integration(t.org, { name: 'second' });
      integ2 = second.id;
      a = {};
      a.disk = await t.fire({ title: 'Disk full on db1', severity: 'critical', source: 'node-exporter', fingerprint: 'fp-disk', labels: { env: 'prod', host: 'db1' } });
      a.cpu = await t.fire({ title: 'CPU at 100% on web1', severity: 'high', source: 'node-exporter', labels: { env: 'prod', host: 'web1' } });
      a.rps = await t.fire({ title: 'CPU at 1000 rps', severity: 'medium', source: 'lb', labels: { env: 'staging', host: 'db1' } }, second.path);
      a.queue = await t.fire({
        title: 'queue_depth growing', severity: 'low', source: 'rabbit',
        labels: { env: 'prod', host: 'db1', team: 'a=b', 'app.kubernetes.io/name': 'mq', $meta: 'x', 'say"hi': 'q' },
      });
      a.queueX = await t.fire({ title: 'queueXdepth stalled', severity: 'info', source: 'rabbit', labels: { env: 'staging' } });
      a.unicode = await t.fire({ title: 'Überlast im Netz', severity: 'info', source: 'net' });
      assert.equal((await h.req('POST', `/api/v1/alerts/${a.cpu}/acknowledge`, { key: t.org.key })).status, 200);
      assert.equal((await h.req('POST', `/api/v1/alerts/${a.rps}/resolve`, { key: t.org.key })).status, 200);
      const all = await t.list();
      created = Object.fromEntries(all.data.map((x) => [x.id, Date.parse(x.createdAt)]));
    });

    const expectIds = async (pairs: Array<[string, string]>, names: string[]) => {
      const page = await t.list(pairs);
      // Newest first: the fixtures were created in the order of `a`, so expected ids come out reversed.
      const order = Object.keys(a);
      const expected = [...names].sort((x, y) => order.indexOf(y) - order.indexOf(x)).map((n) => a[n]);
      assert.deepEqual(page.data.map((x) => x.id), expected, `${qs(pairs)} → ${names.join(',')}`);
      assert.equal(page.meta.total, expected.length, `meta.total counts the filtered matches for ${qs(pairs)}`);
    };

    it('without filters lists every alert of the organization, newest first', async () => {
      await expectIds([], ['disk', 'cpu', 'rps', 'queue', 'queueX', 'unicode']);
      const page = await t.list();
      const times = page.data.map((x) => Date.parse(x.createdAt));
      assert.deepEqual(times, [...times].sort((x, y) => y - x));
    });

    it('status and severity take comma-separated lists', async () => {
      await expectIds([['status', 'firing']], ['disk', 'queue', 'queueX', 'unicode']);
      await expectIds([['status', 'acknowledged,resolved']], ['cpu', 'rps']);
      await expectIds([['status', 'firing,acknowledged']], ['disk', 'cpu', 'queue', 'queueX', 'unicode']);
      await expectIds([['severity', 'critical,high']], ['disk', 'cpu']);
      await expectIds([['severity', 'info']], ['queueX', 'unicode']);
      await expectIds([['status', 'firing'], ['severity', 'info,critical']], ['disk', 'queueX', 'unicode']);
    });

    it('source, fingerprint and integrationId match exactly', async () => {
      await expectIds([['source', 'rabbit']], ['queue', 'queueX']);
      await expectIds([['source', 'node']], []);
      await expectIds([['fingerprint', 'fp-disk']], ['disk']);
      await expectIds([['integrationId', integ2]], ['rps']);
      await expectIds([['integrationId', t.integ.id], ['source', 'node-exporter']], ['disk', 'cpu']);
    });

    it('label=key=value is repeatable and every label must match', async () => {
      await expectIds([['label', 'env=prod']], ['disk', 'cpu', 'queue']);
      await expectIds([['label', 'env=prod'], ['label', 'host=db1']], ['disk', 'queue']);
      await expectIds([['label', 'host=db1'], ['label', 'env=staging']], ['rps']);
      await expectIds([['label', 'env=prod'], ['label', 'host=nowhere']], []);
      await expectIds([['label', 'team=a=b']], ['queue']);
    });

    it('label keys are matched literally, whatever characters they contain', async () => {
      await expectIds([['label', 'app.kubernetes.io/name=mq']], ['queue']);
      await expectIds([['label', '$meta=x']], ['queue']);
      await expectIds([['label', 'say"hi=q']], ['queue']);
    });

    it('since / until bound the creation time', async () => {
      const mid = (x: string, y: string) => new Date(((created[a[x] as string] as number) + (created[a[y] as string] as number)) / 2).toISOString();
      await expectIds([['since', mid('cpu', 'rps')]], ['rps', 'queue', 'queueX', 'unicode']);
      await expectIds([['until', mid('cpu', 'rps')]], ['disk', 'cpu']);
      await expectIds([['since', mid('disk', 'cpu')], ['until', mid('queue', 'queueX')]], ['cpu', 'rps', 'queue']);
      await expectIds([['since', new Date((created[a.unicode as string] as number) + 1).toISOString()]], []);
    });

    it('q finds titles containing the text, case-insensitively', async () => {
      await expectIds([['q', 'disk']], ['disk']);
      await expectIds([['q', 'DISK FULL']], ['disk']);
      await expectIds([['q', 'cpu at']], ['cpu', 'rps']);
      await expectIds([['q', 'überlast']], ['unicode']);
      await expectIds([['q', 'nothing like this']], []);
    });

    it('q takes % and _ literally, not as wildcards', async () => {
      await expectIds([['q', '100%']], ['cpu']);
      await expectIds([['q', '%']], ['cpu']);
      await expectIds([['q', 'queue_depth']], ['queue']);
      await expectIds([['q', '_']], ['queue']);
    });

    it('a NUL character in a title or a filter works on both stores: it is stripped, never stored', async () => {
      const n = await fresh();
      const id = await n.fire({ title: 'bad\u0000byte', labels: { k: 'v\u0000', 'a\u0000b': 'c' } });
      const got = await h.req('GET', `/api/v1/alerts/${id}`, { key: n.org.key });
      assert.equal(got.status, 200);
      assert.equal(got.body.data.title, 'badbyte');
      assert.deepEqual({ ...got.body.data.labels }, { k: 'v', ab: 'c' });
      assert.ok(!got.raw.includes('\\u0000') && !got.raw.includes('\uFFFD'), 'neither NUL nor a replacement character');
      assert.deepEqual((await n.list([['q', 'bad\u0000byte']])).data.map((x) => x.id), [id]);
      assert.deepEqual((await n.list([['source', '\u0000']])).data, []);
      assert.deepEqual((await n.list([['label', 'k=v\u0000']])).data.map((x) => x.id), [id]);
    });

    it('filters only ever see the caller\'s organization', async () => {
      const other = await fresh();
      await other.fire({ title: 'Disk full on db1', severity: 'critical', source: 'node-exporter', fingerprint: 'fp-disk', labels: { env: 'prod' } });
      await expectIds([['fingerprint', 'fp-disk']], ['disk']);
      assert.deepEqual((await other.list([['integrationId', t.integ.id]])).data, []);
    });

    it('rejects malformed filter values with 400 VALIDATION_ERROR', async () => {
      for (const pairs of [[['since', 'yesterday']], [['until', '2026-13-45']], [['label', 'no-equals-sign']], [['limit', '0']], [['limit', '101']], [['limit', 'ten']]] as Array<Array<[string, string]>>) {
        const r = await h.req('GET', `/api/v1/alerts${qs(pairs)}`, { key: t.org.key });
        assert.equal(r.status, 400, qs(pairs));
        assert.equal(r.body.code, 'VALIDATION_ERROR');
      }
      // Like /incidents: an unknown status or severity is a mistake to point out, not an empty list.
      for (const [field, value] of [['status', 'bogus'], ['status', 'firing,bogus'], ['severity', 'urgent'], ['severity', 'critical, sev1']]) {
        const r = await h.req('GET', `/api/v1/alerts${qs([[field as string, value as string]])}`, { key: t.org.key });
        assert.equal(r.status, 400, `${field}=${value}: ${r.raw}`);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
        assert.equal(r.body.details[0].path, `/${field}`);
      }
      await expectIds([['status', 'FIRING, acknowledged'], ['severity', 'Critical']], ['disk']);
    });
  });

  describe('pagination', () => {
    async function walk(list: (pairs: Array<[string, string]>) => Promise<{ data: any[]; meta: any }>, limit: number, between?: () => Promise<void>) {
      const seen: string[] = [];
      const metas: any[] = [];
      let cursor: string | null = null;
      for (let i = 0; i < 50; i++) {
        const pairs: Array<[string, string]> = [['limit', String(limit)]];
        if (cursor !== null) pairs.push(['cursor', cursor]);
        const page = await list(pairs);
        assert.ok(page.data.length <= limit);
        seen.push(...page.data.map((x: { id: string }) => x.id));
        metas.push(page.meta);
        if (!page.meta.hasMore) break;
        cursor = page.meta.nextCursor;
        if (between) await between();
      }
      return { seen, metas };
    }

    it('walking every page with small limits returns each alert exactly once, newest first', async () => {
      const t = await fresh();
      const made: string[] = [];
      for (let i = 0; i < 7; i++) made.push(await t.fire({ title: `alert ${i}` }));
      const newestFirst = [...made].reverse();
      for (const limit of [2, 3]) {
        const { seen, metas } = await walk(t.list, limit);
        assert.deepEqual(seen, newestFirst, `limit ${limit}`);
        assert.equal(metas.length, Math.ceil(7 / limit));
        assert.equal(metas[0].total, 7, 'meta.total on the first page');
        for (const m of metas.slice(1)) assert.equal('total' in m, false, 'no meta.total on later pages');
        for (const m of metas.slice(0, -1)) {
          assert.equal(m.hasMore, true);
          assert.equal(typeof m.nextCursor, 'string');
          assert.equal(m.limit, limit);
        }
        const last = metas[metas.length - 1];
        assert.equal(last.hasMore, false);
        assert.equal(last.nextCursor, null);
      }
    });

    it('alerts created in the same millisecond are still each returned exactly once', async () => {
      const t = await fresh();
      const made = new Set<string>();
      for (let i = 0; i < 7; i++) {
        const r = await h.ingest(t.integ.path, { title: `same instant ${i}`, severity: 'low' });
        made.add(r.body.data.alerts[0].alertId);
      }
      h.clock.advance(1000);
      const { seen } = await walk(t.list, 2);
      assert.equal(seen.length, 7);
      assert.deepEqual(new Set(seen), made);
    });

    it('alerts ingested between page reads neither repeat nor shift later pages', async () => {
      const t = await fresh();
      const made: string[] = [];
      for (let i = 0; i < 7; i++) made.push(await t.fire({ title: `old ${i}` }));
      let n = 0;
      const { seen, metas } = await walk(t.list, 3, async () => {
        // New alerts, and a repeat of an old one (dedup must not move it into a later page).
        await t.fire({ title: `new ${n++}` });
        await t.fire({ title: 'old 0' });
      });
      assert.deepEqual(seen, [...made].reverse(), 'exactly the alerts that existed at the first read, in order');
      assert.equal(metas[0].total, 7);
      assert.equal((await t.list()).meta.total, 7 + n);
    });

    it('defaults to 25 per page and rejects a malformed or foreign cursor with 400', async () => {
      const t = await fresh();
      for (let i = 0; i < 3; i++) await t.fire({ title: `c ${i}` });
      assert.equal((await t.list()).meta.limit, 25);
      const first = await t.list([['limit', '1']]);
      const cursor = first.meta.nextCursor as string;
      const bad = async (url: string, key = t.org.key) => {
        const r = await h.req('GET', url, { key });
        assert.equal(r.status, 400, url);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
      };
      await bad(`/api/v1/alerts?cursor=not-a-cursor`);
      await bad(`/api/v1/alerts?cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`);
      await bad(`/api/v1/alerts?cursor=${encodeURIComponent(cursor)}&status=resolved`);
      const other = await h.newOrg();
      await bad(`/api/v1/alerts?cursor=${encodeURIComponent(cursor)}`, other.key);
    });
  });

  describe('acknowledge and resolve', () => {
    it('acknowledges: 200 with the alert, acknowledgedBy the API key; repeating is a no-op', async () => {
      const t = await fresh();
      const keyId = await keyIdOf(t.org);
      const id = await t.fire({ title: 'ack me', severity: 'high' });
      const at = new Date(h.clock.now()).toISOString();
      const r = await h.req('POST', `/api/v1/alerts/${id}/acknowledge`, { key: t.org.key });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.id, id);
      assert.equal(r.body.data.status, 'acknowledged');
      assert.deepEqual(r.body.data.acknowledgedBy, { type: 'api_key', id: keyId });
      assert.equal(r.body.data.acknowledgedAt, at);
      h.clock.advance(60_000);
      const again = await h.req('POST', `/api/v1/alerts/${id}/acknowledge`, { key: t.org.key });
      assert.equal(again.status, 200);
      assert.equal(again.body.data.status, 'acknowledged');
      assert.equal(again.body.data.acknowledgedAt, at, 'a repeat does not move acknowledgedAt');
      const got = await h.req('GET', `/api/v1/alerts/${id}`, { key: t.org.key });
      assert.equal(got.body.data.status, 'acknowledged');
      assert.equal(got.body.data.updatedAt, at);
    });

    it('resolves (also an acknowledged alert); repeating is a no-op; acknowledging a resolved alert is 409', async () => {
      const t = await fresh();
      const keyId = await keyIdOf(t.org);
      const id = await t.fire({ title: 'resolve me' });
      await h.req('POST', `/api/v1/alerts/${id}/acknowledge`, { key: t.org.key });
      const at = new Date(h.clock.now()).toISOString();
      const r = await h.req('POST', `/api/v1/alerts/${id}/resolve`, { key: t.org.key });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.status, 'resolved');
      assert.deepEqual(r.body.data.resolvedBy, { type: 'api_key', id: keyId });
      assert.equal(r.body.data.resolvedAt, at);
      h.clock.advance(60_000);
      const again = await h.req('POST', `/api/v1/alerts/${id}/resolve`, { key: t.org.key });
      assert.equal(again.status, 200);
      assert.equal(again.body.data.resolvedAt, at, 'a repeat does not move resolvedAt');
      const ack = await h.req('POST', `/api/v1/alerts/${id}/acknowledge`, { key: t.org.key });
      assert.equal(ack.status, 409);
      assert.equal(ack.body.code, 'CONFLICT');
      assert.equal(typeof ack.body.error, 'string');
      assert.equal((await h.req('GET', `/api/v1/alerts/${id}`, { key: t.org.key })).body.data.status, 'resolved');
    });

    it('after a manual resolve, the same fingerprint firing again opens a new alert', async () => {
      const t = await fresh();
      const first = await t.fire({ title: 'flappy', fingerprint: 'flap-1' });
      await h.req('POST', `/api/v1/alerts/${first}/resolve`, { key: t.org.key });
      const r = await h.ingest(t.integ.path, { title: 'flappy', severity: 'low', fingerprint: 'flap-1' });
      assert.equal(r.body.data.alerts[0].action, 'created');
      const second = r.body.data.alerts[0].alertId;
      assert.notEqual(second, first);
      const page = await t.list([['fingerprint', 'flap-1']]);
      assert.deepEqual(page.data.map((x) => [x.id, x.status]), [[second, 'firing'], [first, 'resolved']]);
      assert.equal(page.meta.total, 2);
      // Open and closed alerts of a fingerprint come from different indexes (migration 0017): each filter and page sees both.
      assert.deepEqual((await t.list([['fingerprint', 'flap-1'], ['status', 'resolved']])).data.map((x) => x.id), [first]);
      assert.deepEqual((await t.list([['fingerprint', 'flap-1'], ['status', 'firing,resolved'], ['severity', 'low']])).data.map((x) => x.id), [second, first]);
      const one = await t.list([['fingerprint', 'flap-1'], ['limit', '1']]);
      assert.deepEqual(one.data.map((x) => x.id), [second]);
      const next = await t.list([['fingerprint', 'flap-1'], ['limit', '1'], ['cursor', one.meta.nextCursor]]);
      assert.deepEqual(next.data.map((x) => x.id), [first]);
    });

    it('needs alerts:write', async () => {
      const t = await fresh();
      const id = await t.fire({ title: 'x' });
      const made = await h.req('POST', '/api/v1/api-keys', { key: t.org.key, body: { name: 'ro', scopes: ['alerts:read'] } });
      const ro = made.body.data.key as string;
      for (const url of [`/api/v1/alerts/${id}/acknowledge`, `/api/v1/alerts/${id}/resolve`]) {
        const r = await h.req('POST', url, { key: ro });
        assert.equal(r.status, 403);
        assert.match(r.body.error, /alerts:write/);
      }
      const bulk = await h.req('POST', '/api/v1/alerts/bulk', { key: ro, body: { action: 'resolve', ids: [id] } });
      assert.equal(bulk.status, 403);
      assert.equal((await h.req('GET', `/api/v1/alerts/${id}`, { key: ro })).body.data.status, 'firing');
    });
  });

  describe('bulk', () => {
    it('returns one result per id, in order, and applies each', async () => {
      const t = await fresh();
      const other = await fresh();
      const firing = await t.fire({ title: 'one' });
      const resolved = await t.fire({ title: 'two' });
      const acked = await t.fire({ title: 'three' });
      await h.req('POST', `/api/v1/alerts/${resolved}/resolve`, { key: t.org.key });
      await h.req('POST', `/api/v1/alerts/${acked}/acknowledge`, { key: t.org.key });
      const foreign = await other.fire({ title: 'not yours' });
      const r = await h.req('POST', '/api/v1/alerts/bulk', {
        key: t.org.key,
        body: { action: 'acknowledge', ids: [firing, resolved, foreign, 'alt_doesnotexist', acked] },
      });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data.results, [
        { id: firing, ok: true, status: 'acknowledged' },
        { id: resolved, ok: false, code: 'CONFLICT' },
        { id: foreign, ok: false, code: 'NOT_FOUND' },
        { id: 'alt_doesnotexist', ok: false, code: 'NOT_FOUND' },
        { id: acked, ok: true, status: 'acknowledged' },
      ]);
      assert.equal((await h.req('GET', `/api/v1/alerts/${firing}`, { key: t.org.key })).body.data.status, 'acknowledged');
      assert.equal((await h.req('GET', `/api/v1/alerts/${foreign}`, { key: other.org.key })).body.data.status, 'firing', 'another organization\'s alert is untouched');

      const res = await h.req('POST', '/api/v1/alerts/bulk', { key: t.org.key, body: { action: 'resolve', ids: [firing, resolved, foreign] } });
      assert.deepEqual(res.body.data.results, [
        { id: firing, ok: true, status: 'resolved' },
        { id: resolved, ok: true, status: 'resolved' },
        { id: foreign, ok: false, code: 'NOT_FOUND' },
      ]);
      assert.equal((await t.list([['status', 'resolved']])).meta.total, 2);
      assert.equal((await other.list([['status', 'firing']])).meta.total, 1);
    });

    it('takes 1 to 100 ids; 0 or 101 ids, or an unknown action, is 400', async () => {
      const t = await fresh();
      const id = await t.fire({ title: 'bulk' });
      const hundred = Array.from({ length: 99 }, (_, i) => `alt_missing_${i}`).concat(id);
      const ok = await h.req('POST', '/api/v1/alerts/bulk', { key: t.org.key, body: { action: 'resolve', ids: hundred } });
      assert.equal(ok.status, 200);
      assert.equal(ok.body.data.results.length, 100);
      assert.deepEqual(ok.body.data.results[99], { id, ok: true, status: 'resolved' });
      const bodies: unknown[] = [
        { action: 'resolve', ids: [] },
        { action: 'resolve', ids: [...hundred, 'one_more'] },
        { action: 'delete', ids: [id] },
        { action: 'resolve' },
        { ids: [id] },
        { action: 'resolve', ids: [id], extra: true },
      ];
      const other = await t.fire({ title: 'untouched' });
      for (const body of bodies) {
        const r = await h.req('POST', '/api/v1/alerts/bulk', { key: t.org.key, body });
        assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(r.body.code, 'VALIDATION_ERROR');
      }
      const withOther = await h.req('POST', '/api/v1/alerts/bulk', { key: t.org.key, body: { action: 'resolve', ids: [...hundred, other] } });
      assert.equal(withOther.status, 400);
      assert.equal((await h.req('GET', `/api/v1/alerts/${other}`, { key: t.org.key })).body.data.status, 'firing', 'a rejected bulk request changes nothing');
    });
  });

  describe('acknowledge or resolve all matching', () => {
    const byFilter = (key: string, body: unknown) => h.req('POST', '/api/v1/alerts/bulk-by-filter', { key, body });
    const statusOf = async (t: Awaited<ReturnType<typeof fresh>>, id: string) => (await h.req('GET', `/api/v1/alerts/${id}`, { key: t.org.key })).body.data.status as string;

    it('counts first and changes nothing; the confirmed request acts on what was counted, in this organization only, and is audited', async () => {
      const t = await fresh();
      const other = await fresh();
      const web1 = await t.fire({ title: 'web 1', labels: { team: 'web' } });
      const web2 = await t.fire({ title: 'web 2', labels: { team: 'web' } });
      const webAcked = await t.fire({ title: 'web 3', labels: { team: 'web' } });
      await h.req('POST', `/api/v1/alerts/${webAcked}/acknowledge`, { key: t.org.key });
      const db = await t.fire({ title: 'db 1', labels: { team: 'db' } });
      const foreign = await other.fire({ title: 'web elsewhere', labels: { team: 'web' } });
      const filter = { label: ['team=web'] };

      const dry = await byFilter(t.org.key, { action: 'acknowledge', filter, dryRun: true });
      assert.equal(dry.status, 200, dry.raw);
      assert.equal(dry.body.data.matching, 2, 'the acknowledged alert is not counted for acknowledge');
      assert.equal(dry.body.data.changed, 0);
      assert.equal(dry.body.data.cap, 500);
      assert.deepEqual(await Promise.all([web1, web2].map((id) => statusOf(t, id))), ['firing', 'firing'], 'a dry run changes nothing');
      const resolveDry = await byFilter(t.org.key, { action: 'resolve', filter, dryRun: true });
      assert.equal(resolveDry.body.data.matching, 3, 'resolve also takes acknowledged alerts');

      // An alert that arrives after the count is not part of what the person agreed to.
      h.clock.advance(1);
      const late = await t.fire({ title: 'web late', labels: { team: 'web' } });
      const done = await byFilter(t.org.key, { action: 'acknowledge', filter, confirm: { count: dry.body.data.matching, asOf: dry.body.data.asOf } });
      assert.equal(done.status, 200, done.raw);
      assert.deepEqual({ changed: done.body.data.changed, unchanged: done.body.data.unchanged, remaining: done.body.data.remaining }, { changed: 2, unchanged: 0, remaining: 0 });
      assert.deepEqual(await Promise.all([web1, web2, late, db].map((id) => statusOf(t, id))), ['acknowledged', 'acknowledged', 'firing', 'firing']);
      assert.equal((await h.req('GET', `/api/v1/alerts/${foreign}`, { key: other.org.key })).body.data.status, 'firing', 'another organization\'s alert is untouched');
      const ack = await h.req('GET', `/api/v1/alerts/${web1}`, { key: t.org.key });
      assert.deepEqual(ack.body.data.acknowledgedBy, { type: 'api_key', id: await keyIdOf(t.org) }, 'each alert says who acknowledged it');

      const audit = await h.req('GET', '/api/v1/audit-log?action=alert.acknowledged_matching', { key: t.org.key });
      assert.equal(audit.body.data.length, 1);
      assert.deepEqual(audit.body.data[0].metadata, { filter, matching: 2, changed: 2, unchanged: 0, remaining: 0 });
    });

    it('refuses to act on more than was confirmed (409), and needs a count or a dry run (400)', async () => {
      const t = await fresh();
      const a = await t.fire({ title: 'one', labels: { team: 'x' } });
      const dry = await byFilter(t.org.key, { action: 'resolve', filter: { label: ['team=x'] }, dryRun: true });
      assert.equal(dry.body.data.matching, 1);
      // A second alert created before the confirmed time: more match than the person saw.
      const b = await t.fire({ title: 'two', labels: { team: 'x' } });
      const later = new Date(Date.parse(dry.body.data.asOf) + 60_000).toISOString();
      const tooMany = await byFilter(t.org.key, { action: 'resolve', filter: { label: ['team=x'] }, confirm: { count: 1, asOf: later } });
      assert.equal(tooMany.status, 409, tooMany.raw);
      assert.equal(tooMany.body.code, 'CONFLICT');
      assert.match(tooMany.body.error, /2 alerts match now, 1 were confirmed/);
      assert.deepEqual(await Promise.all([a, b].map((id) => statusOf(t, id))), ['firing', 'firing'], 'a refused request changes nothing');

      for (const body of [
        { action: 'resolve', filter: {} },
        { action: 'resolve', filter: { status: 'burning' }, dryRun: true },
        { action: 'delete', filter: {}, dryRun: true },
        { action: 'resolve', filter: { limit: 5 }, dryRun: true },
        { action: 'resolve', filter: {}, confirm: { count: -1, asOf: later } },
      ]) {
        const r = await byFilter(t.org.key, body);
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.raw}`);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
      }
      assert.deepEqual(await Promise.all([a, b].map((id) => statusOf(t, id))), ['firing', 'firing']);

      const made = await h.req('POST', '/api/v1/api-keys', { key: t.org.key, body: { name: 'ro', scopes: ['alerts:read'] } });
      const ro = await byFilter(made.body.data.key, { action: 'resolve', filter: {}, dryRun: true });
      assert.equal(ro.status, 403);
      assert.match(ro.body.error, /alerts:write/);
    });

    it('acts on at most 500 alerts a request, newest first, and says how many remain', async () => {
      const t = await fresh();
      const am = await h.integration(t.org, { name: 'am', preset: 'alertmanager' });
      for (let b = 0; b < 6; b++) {
        const r = await h.ingest(am.path, {
          status: 'firing',
          alerts: Array.from({ length: b === 5 ? 5 : 100 }, (_, i) => ({ status: 'firing', fingerprint: `storm-${b}-${i}`, labels: { alertname: 'Storm', instance: `host-${b}-${i}` }, annotations: {} })),
        });
        assert.equal(r.status, 200, r.raw);
        h.clock.advance(1000);
      }
      const filter = { q: 'storm' };
      const dry = await byFilter(t.org.key, { action: 'resolve', filter, dryRun: true });
      assert.equal(dry.body.data.matching, 505);
      const first = await byFilter(t.org.key, { action: 'resolve', filter, confirm: { count: 505, asOf: dry.body.data.asOf } });
      assert.equal(first.status, 200, first.raw);
      assert.equal(first.body.data.changed, 500);
      assert.equal(first.body.data.remaining, 5);
      const left = await t.list([['q', 'storm'], ['status', 'firing']]);
      assert.equal(left.meta.total, 5);
      assert.ok(left.data.every((x) => x.labels.instance.startsWith('host-0-')), 'the oldest are left for the next request');
      const again = await byFilter(t.org.key, { action: 'resolve', filter, dryRun: true });
      const second = await byFilter(t.org.key, { action: 'resolve', filter, confirm: { count: again.body.data.matching, asOf: again.body.data.asOf } });
      assert.deepEqual([second.body.data.changed, second.body.data.remaining], [5, 0]);
    });
  });

  describe('unknown ids', () => {
    const forms = [
      'alt_doesnotexist', 'nope', '1', '0', '-1', '00000000-0000-0000-0000-000000000000', 'ALT_', 'x'.repeat(150),
      encodeURIComponent("'; drop table alerts; --"), encodeURIComponent('ü-ñ-✓'), '%00', encodeURIComponent('a\u0000b'),
      encodeURIComponent('a b'), encodeURIComponent('../alerts'), '%zz', 'y'.repeat(1000),
    ];

    it('any unknown id, whatever its form, is 404 NOT_FOUND on get, acknowledge and resolve', async () => {
      const t = await fresh();
      await t.fire({ title: 'present' });
      for (const id of forms) {
        for (const [method, url] of [['GET', `/api/v1/alerts/${id}`], ['POST', `/api/v1/alerts/${id}/acknowledge`], ['POST', `/api/v1/alerts/${id}/resolve`]] as const) {
          const r = await h.req(method, url, { key: t.org.key });
          assert.equal(r.status, 404, `${method} ${url}: ${r.raw}`);
          assert.equal(r.body.code, 'NOT_FOUND', `${method} ${url}`);
        }
      }
      assert.equal((await t.list()).meta.total, 1);
    });

    it('another organization\'s alert is indistinguishable from a random id', async () => {
      const mine = await fresh();
      const theirs = await fresh();
      const foreign = await theirs.fire({ title: 'secret' });
      const random = `alt_${'A'.repeat(16)}`;
      for (const suffix of ['', '/acknowledge', '/resolve']) {
        const method = suffix ? 'POST' : 'GET';
        const a = await h.req(method, `/api/v1/alerts/${foreign}${suffix}`, { key: mine.org.key });
        const b = await h.req(method, `/api/v1/alerts/${random}${suffix}`, { key: mine.org.key });
        assert.equal(a.status, 404);
        assert.equal(b.status, 404);
        assert.deepEqual(a.body, b.body, `${method} ${suffix || 'get'}`);
      }
      assert.equal((await theirs.list()).data[0]?.status, 'firing');
    });
  });
});
