import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deriveFingerprint } from '../../src/modules/ingest/normalize-fns.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Field mappings and presets (contract §4): validation when a mapping is saved, ingest through a mapping,
 * the built-in presets with their own samples, and the preview endpoint.
 */

const iso = (ms: number): string => new Date(ms).toISOString();
const clone = <T>(v: T): T => structuredClone(v);
const paths = (details: Array<{ path: string }> | null): string[] => (details ?? []).map((d) => d.path);

eachStore('integration mappings and presets', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind); });
  after(() => h.close());

  async function create(org: Org, body: Record<string, unknown>) {
    const r = await h.req('POST', '/api/v1/integrations', { key: org.key, body });
    assert.equal(r.status, 201, r.raw);
    const d = r.body.data as Record<string, any>;
    return { ...d, path: `/api/inbound/webhook/${d.token}` } as Record<string, any> & { path: string };
  }
  const get = async (org: Org, id: string) => {
    const r = await h.req('GET', `/api/v1/integrations/${id}`, { key: org.key });
    assert.equal(r.status, 200, r.raw);
    return r.body.data as Record<string, any>;
  };
  const alerts = async (org: Org, query = '') => {
    const r = await h.req('GET', `/api/v1/alerts?limit=100${query}`, { key: org.key });
    assert.equal(r.status, 200, r.raw);
    return r.body as { data: Array<Record<string, any>>; meta: { total: number } };
  };
  const byFingerprint = async (org: Org, fp: string) => {
    const page = await alerts(org, `&fingerprint=${encodeURIComponent(fp)}`);
    assert.equal(page.data.length, 1, `one alert with fingerprint ${fp}`);
    return page.data[0]!;
  };
  let presetList: Array<Record<string, any>> = [];
  const preset = (name: string) => {
    const p = presetList.find((x) => x.name === name);
    assert.ok(p, `preset ${name} is listed`);
    return p;
  };
  before(async () => {
    const r = await h.req('GET', '/api/v1/integrations/presets');
    assert.equal(r.status, 200, r.raw);
    presetList = r.body.data;
  });

  // ---------------------------------------------------------------- validation on save

  describe('mapping validation on save', () => {
    const GOOD = { itemsPath: 'events', fields: { title: 'name', severity: 'level' }, defaults: { source: 'good' } };
    const BAD: Array<[string, unknown, string, RegExp?]> = [
      ['unknown target', { fields: { titel: 'x' } }, '/mapping/fields/titel', /unknown target "titel"/],
      ['unknown labels-like target', { fields: { label: 'x' } }, '/mapping/fields/label'],
      ['empty segment', { fields: { title: 'a..b' } }, '/mapping/fields/title', /"a\.\.b"/],
      ['__proto__ segment', { fields: { title: '__proto__.polluted' } }, '/mapping/fields/title', /__proto__/],
      ['constructor.prototype', { fields: { title: 'constructor.prototype' } }, '/mapping/fields/title', /constructor\.prototype/],
      ['prototype inside a path', { fields: { 'labels.x': 'a.prototype.b' } }, '/mapping/fields/labels.x'],
      ['bare root', { fields: { title: '$.' } }, '/mapping/fields/title'],
      ['trailing dot', { fields: { title: 'name.' } }, '/mapping/fields/title'],
      ['bad second path of a list', { fields: { title: ['name', 'a..b'] } }, '/mapping/fields/title/1'],
      ['prototype key as a label target', { fields: { 'labels.constructor': 'x' } }, '/mapping/fields/labels.constructor'],
      ['empty label key', { fields: { 'labels.': 'x' } }, '/mapping/fields/labels.'],
      ['labels as a default', { defaults: { labels: 'x' } }, '/mapping/defaults/labels'],
      ['annotations as a default', { defaults: { annotations: 'x' } }, '/mapping/defaults/annotations'],
      ['unknown default', { defaults: { sevrity: 'high' } }, '/mapping/defaults/sevrity'],
      ['bad severityMap value', { severityMap: { page: 'urgent' } }, '/mapping/severityMap/page'],
      ['bad statusMap value', { statusMap: { ok: 'closed' } }, '/mapping/statusMap/ok'],
      ['root itemsPath', { itemsPath: '$.alerts' }, '/mapping/itemsPath'],
      ['malformed itemsPath', { itemsPath: 'alerts..list' }, '/mapping/itemsPath'],
      ['prototype itemsPath', { itemsPath: '__proto__' }, '/mapping/itemsPath'],
      ['unknown mapping field', { fieldz: { title: 'x' } }, '/mapping/fieldz'],
    ];

    it('PUT and PATCH refuse each invalid mapping with 400 naming the offending path, and change nothing', async () => {
      const org = await h.newOrg();
      const d = await create(org, { name: 'validated', mapping: GOOD });
      assert.deepEqual(d.mapping, GOOD, 'a valid mapping is stored as given');
      h.clock.advance(1000);
      for (const [what, mapping, path, message] of BAD) {
        for (const method of ['PUT', 'PATCH']) {
          const r = await h.req(method, `/api/v1/integrations/${d.id}`, { key: org.key, body: { name: 'renamed', mapping } });
          assert.equal(r.status, 400, `${method} ${what}: ${r.raw}`);
          assert.equal(r.body.code, 'VALIDATION_ERROR', what);
          assert.ok(paths(r.body.details).includes(path), `${what}: details ${JSON.stringify(r.body.details)} should name ${path}`);
          if (message) {
            const detail = r.body.details.find((x: { path: string }) => x.path === path);
            assert.match(detail.message, message, what);
          }
        }
      }
      const now = await get(org, d.id);
      assert.equal(now.name, 'validated', 'the name sent with a bad mapping was not saved either');
      assert.deepEqual(now.mapping, GOOD, 'the old mapping is kept');
      assert.equal(now.updatedAt, d.updatedAt, 'nothing was written');
      const sent = await h.ingest(d.path, { events: [{ name: 'still mapped', level: 'low' }] });
      assert.equal(sent.status, 200, `the old mapping still applies: ${sent.raw}`);
      const a = await alerts(org);
      assert.equal(a.data[0]!.title, 'still mapped');
      assert.equal(a.data[0]!.source, 'good');
    });

    it('POST refuses an invalid mapping and creates nothing', async () => {
      const org = await h.newOrg();
      for (const [what, mapping, path] of BAD) {
        const r = await h.req('POST', '/api/v1/integrations', { key: org.key, body: { name: 'x', mapping } });
        assert.equal(r.status, 400, `${what}: ${r.raw}`);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
        assert.ok(paths(r.body.details).includes(path), `${what}: ${JSON.stringify(r.body.details)}`);
      }
      assert.equal((await h.req('GET', '/api/v1/integrations', { key: org.key })).body.meta.total, 0);
    });

    it('reports every problem of one mapping at once', async () => {
      const org = await h.newOrg();
      const d = await create(org, { name: 'x' });
      const r = await h.req('PUT', `/api/v1/integrations/${d.id}`, {
        key: org.key,
        body: { mapping: { fields: { titel: 'name', severity: 'a..b' }, defaults: { labels: 'x' } } },
      });
      assert.equal(r.status, 400);
      assert.deepEqual(paths(r.body.details).sort(), ['/mapping/defaults/labels', '/mapping/fields/severity', '/mapping/fields/titel']);
      assert.equal((await get(org, d.id)).mapping, null);
    });
  });

  // ---------------------------------------------------------------- ingest through a custom mapping

  describe('ingest through a custom mapping', () => {
    async function mapped(mapping: Record<string, unknown>) {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'custom', mapping });
      return { org, integ };
    }

    it('itemsPath: every element is one alert, all stored by one request, in order; duplicates in one payload deduplicate', async () => {
      const { org, integ } = await mapped({ itemsPath: 'events', fields: { title: 'name', severity: 'level', fingerprint: 'id' } });
      const payload = {
        events: [
          { name: 'Disk full', level: 'critical', id: 'e1', extra: 1 },
          { name: 'CPU hot', level: 'high', id: 'e2' },
          { name: 'Disk full again', level: 'critical', id: 'e1' },
          { name: 'Queue slow', level: 'LOW', id: 'e3' },
        ],
      };
      const r = await h.ingest(integ.path, payload);
      assert.equal(r.status, 200, r.raw);
      const out = r.body.data.alerts;
      assert.deepEqual(out.map((o: any) => [o.fingerprint, o.action, o.status]), [
        ['e1', 'created', 'firing'], ['e2', 'created', 'firing'], ['e1', 'deduplicated', 'firing'], ['e3', 'created', 'firing'],
      ]);
      assert.equal(out[2].alertId, out[0].alertId);
      const page = await alerts(org);
      assert.equal(page.meta.total, 3);
      const e1 = await byFingerprint(org, 'e1');
      assert.equal(e1.title, 'Disk full', 'the first element created it; the duplicate only counted');
      assert.equal(e1.occurrences, 2);
      assert.equal((await byFingerprint(org, 'e3')).severity, 'low');
      const detail = await h.req('GET', `/api/v1/alerts/${out[1].alertId}`, { key: org.key });
      assert.deepEqual(detail.body.data.payload, payload.events[1], 'each alert keeps its own element of the sender\'s payload');
    });

    it('one bad element refuses the whole payload: 400 naming /<itemsPath>/<i>/<field> and the mapped path, nothing stored', async () => {
      const { org, integ } = await mapped({ itemsPath: 'alerts', fields: { title: 'info.headline', severity: 'level', fingerprint: 'id' } });
      const pre = await h.ingest(integ.path, { alerts: [{ info: { headline: 'open before' }, level: 'high', id: 'open-1' }] });
      assert.equal(pre.status, 200, pre.raw);
      const before = (await alerts(org)).meta.total;
      const r = await h.ingest(integ.path, {
        alerts: [
          { info: { headline: 'would be new' }, level: 'high', id: 'new-1' },
          { info: {}, level: 'high', id: 'new-2' },
          { info: { headline: 'also new' }, level: 'low', id: 'new-3' },
          { info: { headline: 'dup of open' }, level: 'high', id: 'open-1' },
        ],
      });
      assert.equal(r.status, 400, r.raw);
      assert.equal(r.body.code, 'VALIDATION_ERROR');
      assert.deepEqual(paths(r.body.details), ['/alerts/1/title']);
      assert.match(r.body.details[0].message, /required/);
      assert.match(r.body.details[0].message, /info\.headline/, 'the message names the mapped path');
      const after = await alerts(org);
      assert.equal(after.meta.total, before, 'none of the elements was stored');
      assert.equal((await byFingerprint(org, 'open-1')).occurrences, 1, 'the open alert was not touched by the refused payload');
    });

    it('every bad element is named, with the mapped paths tried', async () => {
      const { org, integ } = await mapped({ itemsPath: 'list', fields: { title: ['summary', 'name'], severity: 'sev' } });
      const r = await h.ingest(integ.path, { list: [{ name: 'ok', sev: 'low' }, { sev: 'low' }, { name: 'x' }, { name: 'y', sev: 'bogus' }] });
      assert.equal(r.status, 400, r.raw);
      assert.deepEqual(paths(r.body.details), ['/list/1/title', '/list/2/severity', '/list/3/severity']);
      assert.match(r.body.details[0].message, /"summary", "name"/, 'both paths tried are named');
      assert.match(r.body.details[1].message, /"sev"/);
      assert.match(r.body.details[2].message, /must be one of/);
      assert.match(r.body.details[2].message, /"sev"/);
      assert.equal((await alerts(org)).meta.total, 0);
    });

    it('itemsPath that is missing, not an array, empty or over 1000 elements is 400 naming it', async () => {
      const { org, integ } = await mapped({ itemsPath: 'data.items', fields: { title: 'n', severity: 's' } });
      const cases: Array<[unknown, string]> = [
        [{ data: {} }, '/data/items'],
        [{ data: { items: { n: 'x', s: 'low' } } }, '/data/items'],
        [{ data: { items: [] } }, '/data/items'],
        [{ data: { items: Array.from({ length: 1001 }, (_, i) => ({ n: `a${i}`, s: 'low' })) } }, '/data/items'],
        [['not', 'an', 'object'], '/data/items'],
      ];
      for (const [payload, path] of cases) {
        const r = await h.ingest(integ.path, payload);
        assert.equal(r.status, 400, `${JSON.stringify(payload).slice(0, 60)}: ${r.raw.slice(0, 200)}`);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
        assert.deepEqual(paths(r.body.details), [path]);
      }
      const thousand = await h.ingest(integ.path, { data: { items: Array.from({ length: 1000 }, (_, i) => ({ n: `a${i}`, s: 'low' })) } });
      assert.equal(thousand.status, 200, '1000 elements is the limit, not over it');
      assert.equal(thousand.body.data.alerts.length, 1000);
      assert.equal((await alerts(org)).meta.total, 1000);
    });

    it('a payload with many bad elements answers with at most 50 details', async () => {
      const { integ } = await mapped({ itemsPath: 'a', fields: { title: 't', severity: 's' } });
      const r = await h.ingest(integ.path, { a: Array.from({ length: 200 }, () => ({})) });
      assert.equal(r.status, 400);
      assert.ok(r.body.details.length > 0 && r.body.details.length <= 50, `${r.body.details.length} details`);
      assert.equal(r.body.details[0].path, '/a/0/title');
    });

    it('$. paths read the whole payload and numeric segments index arrays', async () => {
      const { org, integ } = await mapped({
        itemsPath: 'alerts',
        fields: {
          title: 'labels.alertname',
          severity: '$.commonLabels.severity',
          source: '$.receiver',
          'labels.group': '$.groupKey',
          'labels.first_instance': '$.alerts.0.labels.instance',
          'annotations.peer': 'peers.1',
          fingerprint: 'fp',
        },
      });
      const r = await h.ingest(integ.path, {
        receiver: 'team-db',
        groupKey: 'g-42',
        commonLabels: { severity: 'medium' },
        alerts: [
          { labels: { alertname: 'A', instance: 'db-1' }, fp: 'root-a', peers: ['p0', 'p1'] },
          { labels: { alertname: 'B', instance: 'db-2' }, fp: 'root-b', peers: ['only'] },
        ],
      });
      assert.equal(r.status, 200, r.raw);
      const a = await byFingerprint(org, 'root-a');
      const b = await byFingerprint(org, 'root-b');
      for (const x of [a, b]) {
        assert.equal(x.severity, 'medium');
        assert.equal(x.source, 'team-db');
        assert.equal(x.labels.group, 'g-42');
        assert.equal(x.labels.first_instance, 'db-1', '$. reads the payload, not the element');
      }
      assert.equal(a.title, 'A');
      assert.equal(b.title, 'B');
      assert.deepEqual(a.annotations, { peer: 'p1' });
      assert.deepEqual(b.annotations, {}, 'a missing index yields nothing');
    });

    it('labels / annotations take a whole object; labels.<key> / annotations.<key> add one value to it', async () => {
      const { org, integ } = await mapped({
        fields: {
          title: 'name',
          severity: 'sev',
          fingerprint: 'id',
          labels: 'tags',
          'labels.host': 'where.host',
          'labels.port': 'where.port',
          'labels.missing': 'where.nothing',
          annotations: 'notes',
          'annotations.runbook': 'links.runbook',
        },
      });
      const r = await h.ingest(integ.path, {
        name: 'x', sev: 'low', id: 'obj-1',
        tags: { env: 'prod', host: 'from-tags' },
        where: { host: 'db-7', port: 5432 },
        notes: { owner: 'dba' },
        links: { runbook: 'https://runbooks/x' },
      });
      assert.equal(r.status, 200, r.raw);
      const a = await byFingerprint(org, 'obj-1');
      assert.deepEqual(a.labels, { env: 'prod', host: 'db-7', port: '5432' }, 'labels.<key> wins over the same key of the whole object; numbers become text');
      assert.deepEqual(a.annotations, { owner: 'dba', runbook: 'https://runbooks/x' });
    });

    it('a mapped labels.<key> whose value is an object is 400 naming the label and the mapped path', async () => {
      const { org, integ } = await mapped({ fields: { title: 'name', severity: 'sev', 'labels.host': 'where' } });
      const r = await h.ingest(integ.path, { name: 'x', sev: 'low', where: { host: 'db' } });
      assert.equal(r.status, 400, r.raw);
      assert.deepEqual(paths(r.body.details), ['/labels/host']);
      assert.match(r.body.details[0].message, /"where"/);
      assert.equal((await alerts(org)).meta.total, 0);
    });

    it('severityMap / statusMap: exact match, then case-insensitive, then standard values, then *', async () => {
      const { org, integ } = await mapped({
        itemsPath: 'x',
        fields: { title: 'n', severity: 'sev', status: 'st', fingerprint: 'n' },
        severityMap: { P1: 'critical', p2: 'high', Sev: 'info', HIGH: 'low', '*': 'medium' },
        statusMap: { open: 'firing', Closed: 'resolved', ack: 'acknowledged' },
      });
      const cases: Array<[string, unknown, string]> = [
        ['exact', 'P1', 'critical'],
        ['case-insensitive', 'P2', 'high'],
        ['case-insensitive, other way', 'sev', 'info'],
        ['mapped beats standard', 'high', 'low'],
        ['standard passes through', 'Critical', 'critical'],
        ['standard passes through, lower', 'info', 'info'],
        ['* catches the rest', 'P9', 'medium'],
        ['* catches numbers too', 3, 'medium'],
      ];
      const r = await h.ingest(integ.path, { x: cases.map(([n, sev]) => ({ n, sev, st: 'OPEN' })) });
      assert.equal(r.status, 200, r.raw);
      for (const [n, , expected] of cases) {
        const a = await byFingerprint(org, n);
        assert.equal(a.severity, expected, n);
        assert.equal(a.status, 'firing', `${n}: statusMap matched case-insensitively`);
      }
      const ack = await h.ingest(integ.path, { x: [{ n: 'exact', sev: 'P1', st: 'ack' }, { n: 'standard passes through', sev: 'P1', st: 'Suppressed' }] });
      assert.deepEqual(ack.body.data.alerts.map((o: any) => o.action), ['acknowledged', 'suppressed']);
      const closed = await h.ingest(integ.path, { x: [{ n: 'case-insensitive', st: 'CLOSED' }, { n: 'never-fired', st: 'closed' }] });
      assert.equal(closed.status, 200, closed.raw);
      assert.deepEqual(closed.body.data.alerts.map((o: any) => o.action), ['resolved', 'ignored']);
      assert.equal((await byFingerprint(org, 'case-insensitive')).status, 'resolved');
    });

    it('a mapped severity or status that is neither mapped nor standard (and no *) is 400, nothing stored', async () => {
      const { org, integ } = await mapped({
        itemsPath: 'x',
        fields: { title: 'n', severity: 'sev', status: 'st' },
        severityMap: { P1: 'critical' },
        statusMap: { open: 'firing' },
      });
      const r = await h.ingest(integ.path, { x: [{ n: 'a', sev: 'P1', st: 'open' }, { n: 'b', sev: 'P7', st: 'open' }, { n: 'c', sev: 'P1', st: 'pending' }] });
      assert.equal(r.status, 400, r.raw);
      assert.deepEqual(paths(r.body.details), ['/x/1/severity', '/x/2/status']);
      assert.match(r.body.details[0].message, /must be one of critical, high, medium, low, info/);
      assert.match(r.body.details[0].message, /"sev"/);
      assert.match(r.body.details[1].message, /"st"/);
      assert.equal((await alerts(org)).meta.total, 0);
    });

    it('defaults fill only what the payload leaves empty', async () => {
      const { org, integ } = await mapped({
        itemsPath: 'x',
        fields: { title: 'n', severity: 'sev', fingerprint: 'n', labels: 'l' },
        defaults: { severity: 'low', source: 'default-source', 'labels.team': 'ops', 'annotations.runbook': 'https://runbooks/default' },
      });
      const r = await h.ingest(integ.path, {
        x: [
          { n: 'bare' },
          { n: 'given', sev: 'critical', source: 'own-source', l: { team: 'dba' } },
          { n: 'empty-string', sev: '' },
        ],
      });
      assert.equal(r.status, 200, r.raw);
      const bare = await byFingerprint(org, 'bare');
      assert.equal(bare.severity, 'low');
      assert.equal(bare.source, 'default-source');
      assert.deepEqual(bare.labels, { team: 'ops' });
      assert.deepEqual(bare.annotations, { runbook: 'https://runbooks/default' });
      const given = await byFingerprint(org, 'given');
      assert.equal(given.severity, 'critical');
      assert.equal(given.source, 'own-source', 'a standard field of the element passes through and beats the default');
      assert.deepEqual(given.labels, { team: 'dba' });
      assert.equal((await byFingerprint(org, 'empty-string')).severity, 'low', 'an empty string counts as empty');
    });

    it('standard fields in the element that are not mapped pass through; mapped ones come from their path', async () => {
      const { org, integ } = await mapped({ fields: { title: 'headline' } });
      const r = await h.ingest(integ.path, {
        headline: 'From headline', title: 'Ignored: title is mapped',
        severity: 'HIGH', status: 'firing', source: 'src', description: 'desc', dedup_key: 'dk-1',
        labels: { a: '1' }, annotations: { b: '2' }, vendor: { id: 1 },
      });
      assert.equal(r.status, 200, r.raw);
      const a = await byFingerprint(org, 'dk-1');
      assert.equal(a.title, 'From headline');
      assert.equal(a.severity, 'high');
      assert.equal(a.source, 'src');
      assert.equal(a.description, 'desc');
      assert.deepEqual(a.labels, { a: '1' });
      assert.deepEqual(a.annotations, { b: '2' });
    });

    it('a mapped path that is empty is not replaced by the element\'s own standard field', async () => {
      const { org, integ } = await mapped({ fields: { title: 'headline', severity: 'sev' } });
      const r = await h.ingest(integ.path, { title: 'own title', severity: 'low', sev: 'low' });
      assert.equal(r.status, 400, r.raw);
      assert.deepEqual(paths(r.body.details), ['/title']);
      assert.match(r.body.details[0].message, /"headline"/);
      assert.equal((await alerts(org)).meta.total, 0);
    });

    it('a mapping without itemsPath maps the payload itself to one alert; errors name the standard field', async () => {
      const { org, integ } = await mapped({ fields: { title: 'check.name', severity: 'check.level', status: 'check.state', fingerprint: 'check.id' }, statusMap: { ok: 'resolved', bad: 'firing' } });
      const fired = await h.ingest(integ.path, { check: { name: 'HTTP', level: 'high', state: 'bad', id: 7 } });
      assert.equal(fired.status, 200, fired.raw);
      assert.deepEqual(fired.body.data.alerts.map((o: any) => [o.fingerprint, o.action]), [['7', 'created']], 'a numeric id becomes its text');
      const ok = await h.ingest(integ.path, { check: { state: 'OK', id: 7 } });
      assert.equal(ok.body.data.alerts[0].action, 'resolved');
      const bad = await h.ingest(integ.path, { check: { level: 'high', state: 'bad', id: 8 } });
      assert.equal(bad.status, 400);
      assert.deepEqual(paths(bad.body.details), ['/title']);
      assert.equal((await alerts(org)).meta.total, 1);
    });

    it('paths never read inherited properties: "toString", "length" and friends yield nothing', async () => {
      const { org, integ } = await mapped({ fields: { title: 'name', severity: 'sev', 'labels.a': 'name.length', 'labels.b': 'obj.toString', 'labels.c': 'obj.hasOwnProperty', 'labels.d': 'list.length' } });
      const r = await h.ingest(integ.path, { name: 'n', sev: 'low', obj: {}, list: [1, 2] });
      assert.equal(r.status, 200, r.raw);
      const [a] = (await alerts(org)).data;
      assert.deepEqual(a!.labels, {});
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });
  });

  // ---------------------------------------------------------------- presets

  describe('presets', () => {
    const NAMES = ['alertmanager', 'grafana', 'zabbix', 'datadog', 'uptime-kuma', 'azure-monitor', 'newrelic'];

    it('GET /integrations/presets lists every preset with a mapping, a sample and setup text', async () => {
      const r = await h.req('GET', '/api/v1/integrations/presets');
      assert.equal(r.status, 200);
      const names = r.body.data.map((p: { name: string }) => p.name);
      for (const n of NAMES) assert.ok(names.includes(n), `${n} is listed (got ${names.join(', ')})`);
      assert.ok(names.includes('standard'));
      assert.equal(new Set(names).size, names.length, 'no duplicates');
      for (const p of r.body.data) {
        assert.equal(typeof p.title, 'string');
        assert.ok(p.title.length > 0 && p.setup.length > 0, p.name);
        assert.equal(typeof p.sample, 'object', p.name);
        if (p.name === 'standard') assert.equal(p.mapping, null);
        else assert.ok(p.mapping && Object.keys(p.mapping.fields).length > 0, `${p.name} has a mapping`);
      }
      const ro = await h.req('POST', '/api/v1/api-keys', { body: { name: 'ro', scopes: ['integrations:read'] } });
      assert.equal((await h.req('GET', '/api/v1/integrations/presets', { key: ro.body.data.key })).status, 200);
      const none = await h.req('POST', '/api/v1/api-keys', { body: { name: 'none', scopes: ['alerts:read'] } });
      const forbidden = await h.req('GET', '/api/v1/integrations/presets', { key: none.body.data.key });
      assert.equal(forbidden.status, 403);
      assert.match(forbidden.body.error, /integrations:read/);
      assert.equal((await h.req('GET', '/api/v1/integrations/presets', { key: null })).status, 401);
    });

    interface Expected {
      title: string; severity: string; status: string; fingerprint: string; source: string;
      description?: string; labels?: Record<string, string>; annotations?: Record<string, string>;
    }
    const CASES: Record<string, { actions: string[]; alert: Expected; resolve: (s: any) => any }> = {
      alertmanager: {
        actions: ['created', 'ignored'],
        alert: {
          title: 'High 5xx rate on api-1', severity: 'critical', status: 'firing', fingerprint: 'c4f6a3d2b1e09f87', source: 'alertmanager',
          description: '5xx responses are 12% of traffic over the last 5 minutes.',
          labels: { alertname: 'HighErrorRate', job: 'api', instance: 'api-1:9100', severity: 'critical', client: 'acme' },
          annotations: {
            summary: 'High 5xx rate on api-1',
            description: '5xx responses are 12% of traffic over the last 5 minutes.',
            runbook_url: 'https://runbooks.example.com/high-error-rate',
            generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=rate%28http_5xx%5B5m%5D%29',
          },
        },
        resolve: (s) => ({ ...s, status: 'resolved', alerts: [{ ...s.alerts[0], status: 'resolved', endsAt: '2026-11-21T10:10:00.000Z' }] }),
      },
      grafana: {
        actions: ['created'],
        alert: {
          title: 'Disk /var on db-1 is 93% full', severity: 'high', status: 'firing', fingerprint: '0a1b2c3d4e5f6071', source: 'grafana',
          description: 'Free space is below 7% and falling.',
          labels: { alertname: 'Disk almost full', grafana_folder: 'Infra', instance: 'db-1', severity: 'high' },
          annotations: {
            summary: 'Disk /var on db-1 is 93% full', description: 'Free space is below 7% and falling.',
            dashboard: 'https://grafana.example.com/d/node/node-exporter?orgId=1',
            generatorURL: 'https://grafana.example.com/alerting/grafana/ddx8c2/view?orgId=1',
          },
        },
        resolve: (s) => ({ ...s, status: 'resolved', alerts: [{ ...s.alerts[0], status: 'resolved' }] }),
      },
      zabbix: {
        actions: ['created'],
        alert: {
          title: 'High CPU utilization (over 90% for 5m)', severity: 'medium', status: 'firing', fingerprint: '4913027', source: 'zabbix',
          description: 'CPU utilization is too high. The system might be slow to respond.',
          labels: { host: 'web-3', ip: '10.0.4.13' },
          annotations: { dashboard: 'https://zabbix.example.com/tr_events.php?triggerid=23456&eventid=4913027' },
        },
        resolve: (s) => ({ ...s, event_value: '0' }),
      },
      datadog: {
        actions: ['created'],
        alert: {
          title: '[Triggered] CPU load is high on host:i-0abc123', severity: 'high', status: 'firing', fingerprint: '2f7e1a6c9d2b4e8f', source: 'datadog',
          labels: { host: 'i-0abc123', tags: 'env:prod,service:checkout,monitor' },
          annotations: { dashboard: 'https://app.datadoghq.com/event/event?id=7834560129384756123' },
        },
        resolve: (s) => ({ ...s, title: '[Recovered] CPU load is high on host:i-0abc123', alert_transition: 'Recovered' }),
      },
      'uptime-kuma': {
        actions: ['created'],
        alert: {
          title: 'Shop front page', severity: 'high', status: 'firing', fingerprint: deriveFingerprint('Shop front page', 'uptime-kuma'), source: 'uptime-kuma',
          description: 'connect ECONNREFUSED 203.0.113.10:443',
          labels: { url: 'https://shop.example.com' },
        },
        resolve: (s) => ({ ...s, heartbeat: { ...s.heartbeat, status: 1, msg: '200 - OK' }, msg: '[Shop front page] [✅ Up] 200 - OK' }),
      },
      'azure-monitor': {
        actions: ['created'],
        alert: {
          title: 'WCUS-R2-Gen2 high CPU', severity: 'high', status: 'firing',
          fingerprint: '/subscriptions/1e3ff1c0-771a-4119-a03b-be82a51e232d/providers/Microsoft.AlertsManagement/alerts/b9569717-bc32-442f-add5-83a997729330',
          source: 'azure-monitor', description: 'CPU above 90% for 15 minutes',
          labels: { service: 'Platform', signal: 'Metric', resource: 'wcus-r2-gen2' },
        },
        resolve: (s) => ({ ...s, data: { ...s.data, essentials: { ...s.data.essentials, monitorCondition: 'Resolved', resolvedDateTime: '2026-11-21T10:20:00Z' } } }),
      },
      newrelic: {
        actions: ['created'],
        alert: {
          title: 'Apdex score below 0.7 for checkout-service', severity: 'critical', status: 'firing', fingerprint: '0b2c8f4e-6d5a-4c1b-9e7f-3a2b1c0d9e8f', source: 'newrelic',
          labels: { entity: 'checkout-service', policy: 'Golden signals', condition: 'Apdex low' },
          annotations: { dashboard: 'https://radar-api.service.newrelic.com/accounts/1234567/issues/0b2c8f4e-6d5a-4c1b-9e7f-3a2b1c0d9e8f' },
        },
        resolve: (s) => ({ ...s, state: 'CLOSED' }),
      },
    };

    for (const name of NAMES) {
      it(`${name}: its sample is stored as the expected alert, and its resolve form resolves it`, async () => {
        const p = preset(name);
        const c = CASES[name]!;
        const org = await h.newOrg();
        const integ = await create(org, { name, preset: name });
        assert.equal(integ.preset, name);
        assert.equal(integ.mapping, null, 'a preset is not copied into mapping');
        const r = await h.ingest(integ.path, clone(p.sample));
        assert.equal(r.status, 200, r.raw);
        assert.deepEqual(r.body.data.alerts.map((o: any) => o.action), c.actions);
        assert.equal(r.body.data.alerts[0].fingerprint, c.alert.fingerprint);
        const page = await alerts(org);
        assert.equal(page.meta.total, 1);
        const a = page.data[0]!;
        assert.equal(a.title, c.alert.title);
        assert.equal(a.severity, c.alert.severity);
        assert.equal(a.status, c.alert.status);
        assert.equal(a.fingerprint, c.alert.fingerprint);
        assert.equal(a.source, c.alert.source);
        assert.equal(a.integrationId, integ.id);
        if (c.alert.description !== undefined) assert.equal(a.description, c.alert.description);
        if (c.alert.labels) assert.deepEqual(a.labels, c.alert.labels);
        if (c.alert.annotations) assert.deepEqual(a.annotations, c.alert.annotations);

        h.clock.advance(60_000);
        const again = await h.ingest(integ.path, clone(p.sample));
        assert.equal(again.body.data.alerts[0].action, 'deduplicated', 'the same sample again is the same alert');

        h.clock.advance(60_000);
        const res = await h.ingest(integ.path, c.resolve(clone(p.sample)));
        assert.equal(res.status, 200, res.raw);
        assert.equal(res.body.data.alerts[0].action, 'resolved', 'the resolve form resolves the alert');
        assert.equal(res.body.data.alerts[0].alertId, a.id);
        const done = await h.req('GET', `/api/v1/alerts/${a.id}`, { key: org.key });
        assert.equal(done.body.data.status, 'resolved');
        assert.equal(done.body.data.resolvedAt, iso(h.clock.now()));
        assert.deepEqual(done.body.data.resolvedBy, { type: 'integration', id: integ.id });
        assert.equal(done.body.data.occurrences, 2);
        assert.equal((await alerts(org)).meta.total, 1, 'resolving stored no new alert');
      });
    }

    it('alertmanager: severities error→high, warning→medium, unknown or absent→high, standard ones pass through; title from summary else alertname', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'am', preset: 'alertmanager' });
      const base = preset('alertmanager').sample.alerts[0];
      const el = (fp: string, severity: string | undefined, summary?: string) => ({
        ...clone(base),
        fingerprint: fp,
        labels: { alertname: `Alert ${fp}`, ...(severity !== undefined && { severity }) },
        annotations: summary === undefined ? {} : { summary },
      });
      const body = {
        ...clone(preset('alertmanager').sample),
        alerts: [
          el('err', 'error'), el('warn', 'warning'), el('warn-upper', 'WARNING'), el('page', 'page'), el('none', undefined),
          el('crit', 'Critical'), el('info', 'info'), el('low', 'low'), el('sum', 'high', 'Summary wins'), el('empty-sum', 'high', ''),
        ],
      };
      const r = await h.ingest(integ.path, body);
      assert.equal(r.status, 200, r.raw);
      const expected: Record<string, [string, string]> = {
        err: ['high', 'Alert err'], warn: ['medium', 'Alert warn'], 'warn-upper': ['medium', 'Alert warn-upper'], page: ['high', 'Alert page'],
        none: ['high', 'Alert none'], crit: ['critical', 'Alert crit'], info: ['info', 'Alert info'], low: ['low', 'Alert low'],
        sum: ['high', 'Summary wins'], 'empty-sum': ['high', 'Alert empty-sum'],
      };
      for (const [fp, [severity, title]] of Object.entries(expected)) {
        const a = await byFingerprint(org, fp);
        assert.equal(a.severity, severity, `severity of ${fp}`);
        assert.equal(a.title, title, `title of ${fp}`);
        assert.equal(a.source, 'alertmanager');
      }
      const bad = await h.ingest(integ.path, { ...body, alerts: [{ ...el('x', 'high'), labels: { severity: 'high' } }] });
      assert.equal(bad.status, 400, 'no summary and no alertname: no title');
      assert.deepEqual(paths(bad.body.details), ['/alerts/0/title']);
      assert.match(bad.body.details[0].message, /annotations\.summary/);
      assert.match(bad.body.details[0].message, /labels\.alertname/);
    });

    it('alertmanager: a group mixing firing and resolved alerts resolves the open ones and opens the new ones in one request', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'am', preset: 'alertmanager' });
      const s = clone(preset('alertmanager').sample);
      const firingBoth = { ...s, alerts: s.alerts.map((a: any) => ({ ...a, status: 'firing' })) };
      const first = await h.ingest(integ.path, firingBoth);
      assert.deepEqual(first.body.data.alerts.map((o: any) => o.action), ['created', 'created']);
      const second = await h.ingest(integ.path, s);
      assert.deepEqual(second.body.data.alerts.map((o: any) => o.action), ['deduplicated', 'resolved']);
      assert.equal((await byFingerprint(org, '5e2d1c0b9a887766')).status, 'resolved');
      assert.equal((await byFingerprint(org, '5e2d1c0b9a887766')).severity, 'medium', 'warning → medium');
      assert.equal((await byFingerprint(org, '5e2d1c0b9a887766')).title, 'HighErrorRate', 'no summary: the alertname');
      assert.equal((await byFingerprint(org, 'c4f6a3d2b1e09f87')).status, 'firing');
    });

    it('a standard payload sent to a preset integration is refused with details naming the preset\'s items path', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'am', preset: 'alertmanager' });
      const r = await h.ingest(integ.path, { title: 'plain', severity: 'high' });
      assert.equal(r.status, 400, r.raw);
      assert.deepEqual(paths(r.body.details), ['/alerts']);
      assert.equal((await alerts(org)).meta.total, 0);
    });
  });

  // ---------------------------------------------------------------- mapping vs preset

  describe('mapping versus preset', () => {
    it('a custom mapping wins over the preset; mapping: null goes back to the preset; changing the preset applies at once', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'both', preset: 'alertmanager' });
      const amSample = preset('alertmanager').sample;
      const custom = { fields: { title: 'headline', severity: 'level', fingerprint: 'ref' }, defaults: { source: 'custom' } };

      const put = await h.req('PUT', `/api/v1/integrations/${integ.id}`, { key: org.key, body: { mapping: custom } });
      assert.equal(put.status, 200, put.raw);
      assert.equal(put.body.data.preset, 'alertmanager', 'the preset is kept');
      assert.deepEqual(put.body.data.mapping, custom);
      const viaCustom = await h.ingest(integ.path, { headline: 'custom wins', level: 'low', ref: 'c-1' });
      assert.equal(viaCustom.status, 200, viaCustom.raw);
      assert.equal((await byFingerprint(org, 'c-1')).source, 'custom');
      const amRefused = await h.ingest(integ.path, clone(amSample));
      assert.equal(amRefused.status, 400, 'the preset is not used while a mapping is set');

      const reset = await h.req('PATCH', `/api/v1/integrations/${integ.id}`, { key: org.key, body: { mapping: null } });
      assert.equal(reset.status, 200);
      assert.equal(reset.body.data.mapping, null);
      assert.equal(reset.body.data.preset, 'alertmanager');
      const viaPreset = await h.ingest(integ.path, clone(amSample));
      assert.equal(viaPreset.status, 200, viaPreset.raw);
      assert.equal((await byFingerprint(org, 'c4f6a3d2b1e09f87')).source, 'alertmanager');
      assert.equal((await h.ingest(integ.path, { headline: 'x', level: 'low', ref: 'c-2' })).status, 400);

      const toStandard = await h.req('PUT', `/api/v1/integrations/${integ.id}`, { key: org.key, body: { preset: 'standard' } });
      assert.equal(toStandard.status, 200);
      const std = await h.ingest(integ.path, { title: 'standard now', severity: 'info', fingerprint: 's-1' });
      assert.equal(std.status, 200, std.raw);
      assert.equal((await byFingerprint(org, 's-1')).title, 'standard now');

      const toZabbix = await h.req('PATCH', `/api/v1/integrations/${integ.id}`, { key: org.key, body: { preset: 'zabbix' } });
      assert.equal(toZabbix.status, 200);
      const zb = await h.ingest(integ.path, clone(preset('zabbix').sample));
      assert.equal(zb.status, 200, zb.raw);
      assert.equal((await byFingerprint(org, '4913027')).source, 'zabbix');
      assert.deepEqual((await get(org, integ.id)).mapping, null);
    });

    it('a mapping can be set on a standard integration at creation and is shown by GET and the list', async () => {
      const org = await h.newOrg();
      const mapping = { itemsPath: 'a', fields: { title: 't', severity: ['s', '$.default_sev'] }, severityMap: { P1: 'critical' }, statusMap: { ok: 'resolved' }, defaults: { 'labels.env': 'prod' } };
      const integ = await create(org, { name: 'm', mapping });
      assert.deepEqual(integ.mapping, mapping);
      assert.equal(integ.preset, 'standard');
      assert.deepEqual((await get(org, integ.id)).mapping, mapping);
      const list = await h.req('GET', '/api/v1/integrations', { key: org.key });
      assert.deepEqual(list.body.data[0].mapping, mapping);
      const r = await h.ingest(integ.path, { default_sev: 'P1', a: [{ t: 'one' }, { t: 'two', s: 'low' }] });
      assert.equal(r.status, 200, r.raw);
      const page = await alerts(org);
      assert.deepEqual(page.data.map((a) => [a.title, a.severity, a.labels.env]).sort(), [['one', 'critical', 'prod'], ['two', 'low', 'prod']]);
    });
  });

  // ---------------------------------------------------------------- preview

  describe('preview', () => {
    const preview = (org: Org, id: string, body: unknown, key = org.key) =>
      h.req('POST', `/api/v1/integrations/${id}/preview`, { key, body });

    it('returns the normalized alerts of the preset sample and stores nothing, counting nothing', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'am', preset: 'alertmanager' });
      const r = await preview(org, integ.id, { payload: preset('alertmanager').sample });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.ok, true);
      assert.deepEqual(r.body.data.errors, []);
      assert.deepEqual(r.body.data.alerts, [
        {
          title: 'High 5xx rate on api-1', severity: 'critical', status: 'firing', source: 'alertmanager',
          description: '5xx responses are 12% of traffic over the last 5 minutes.', fingerprint: 'c4f6a3d2b1e09f87',
          labels: { alertname: 'HighErrorRate', job: 'api', instance: 'api-1:9100', severity: 'critical', client: 'acme' },
          annotations: {
            summary: 'High 5xx rate on api-1', description: '5xx responses are 12% of traffic over the last 5 minutes.',
            runbook_url: 'https://runbooks.example.com/high-error-rate',
            // The sender's own link, shown on the alert page (docs/senders.md).
            generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=rate%28http_5xx%5B5m%5D%29',
          },
          clientId: null,
        },
        {
          title: 'HighErrorRate', severity: 'medium', status: 'resolved', source: 'alertmanager',
          description: '5xx responses are back under 1%.', fingerprint: '5e2d1c0b9a887766',
          labels: { alertname: 'HighErrorRate', job: 'api', instance: 'api-2:9100', severity: 'warning' },
          annotations: { description: '5xx responses are back under 1%.', generatorURL: 'http://prometheus.example.com:9090/graph?g0.expr=rate%28http_5xx%5B5m%5D%29' },
          clientId: null,
        },
      ]);
      assert.equal((await alerts(org)).meta.total, 0, 'nothing stored');
      const after = await get(org, integ.id);
      assert.equal(after.acceptedCount, 0);
      assert.equal(after.rejectedCount, 0);
      assert.equal(after.lastAlertAt, null);
      assert.equal(after.updatedAt, integ.updatedAt);
      const rej = await h.req('GET', `/api/v1/integrations/${integ.id}/rejections`, { key: org.key });
      assert.deepEqual(rej.body.data, []);
    });

    it('every preset\'s own sample previews as ok', async () => {
      const org = await h.newOrg();
      for (const p of presetList) {
        const integ = await create(org, { name: p.name, preset: p.name });
        const r = await preview(org, integ.id, { payload: p.sample });
        assert.equal(r.status, 200, r.raw);
        assert.equal(r.body.data.ok, true, `${p.name}: ${JSON.stringify(r.body.data.errors)}`);
        assert.ok(r.body.data.alerts.length >= 1, p.name);
      }
      assert.equal((await alerts(org)).meta.total, 0);
    });

    it('an unsaved mapping in the body is used instead of the saved one, and is not saved', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'am', preset: 'alertmanager' });
      const mapping = { itemsPath: 'rows', fields: { title: 'msg', severity: 'lvl' }, severityMap: { hi: 'high' }, defaults: { source: 'tried' } };
      const r = await preview(org, integ.id, { payload: { rows: [{ msg: 'tried out', lvl: 'HI' }] }, mapping });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.ok, true, JSON.stringify(r.body.data.errors));
      assert.equal(r.body.data.alerts.length, 1);
      assert.equal(r.body.data.alerts[0].title, 'tried out');
      assert.equal(r.body.data.alerts[0].severity, 'high');
      assert.equal(r.body.data.alerts[0].source, 'tried');
      assert.equal(r.body.data.alerts[0].fingerprint, deriveFingerprint('tried out', 'tried'), 'the fingerprint ingest would derive');
      const saved = await get(org, integ.id);
      assert.equal(saved.mapping, null);
      assert.equal(saved.preset, 'alertmanager');
    });

    it('mapping: null previews the standard payload, even on a preset integration', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'am', preset: 'alertmanager' });
      const r = await preview(org, integ.id, { payload: { title: 'Standard', severity: 'LOW', labels: { a: 1 } }, mapping: null });
      assert.equal(r.status, 200, r.raw);
      assert.equal(r.body.data.ok, true, JSON.stringify(r.body.data.errors));
      assert.deepEqual(r.body.data.alerts, [{
        title: 'Standard', severity: 'low', status: 'firing', source: null, description: null,
        fingerprint: deriveFingerprint('Standard', null), labels: { a: '1' }, annotations: {}, clientId: null,
      }]);
      const withSaved = await preview(org, integ.id, { payload: { title: 'Standard', severity: 'low' } });
      assert.equal(withSaved.body.data.ok, false, 'without mapping in the body the saved preset applies');
    });

    it('a payload ingest would refuse is 200 with ok:false and the errors ingest would answer', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'am', preset: 'alertmanager' });
      const s = clone(preset('alertmanager').sample);
      s.alerts[1].labels = { job: 'api' };
      const resolvedNoTitle = await preview(org, integ.id, { payload: s });
      assert.equal(resolvedNoTitle.status, 200, resolvedNoTitle.raw);
      assert.equal(resolvedNoTitle.body.data.ok, true, 'a resolved element with a fingerprint needs no title');

      s.alerts[0].labels = { job: 'api' };
      s.alerts[0].annotations = {};
      const bad = await preview(org, integ.id, { payload: s });
      assert.equal(bad.status, 200, bad.raw);
      assert.equal(bad.body.data.ok, false);
      assert.deepEqual(bad.body.data.alerts, []);
      assert.deepEqual(paths(bad.body.data.errors), ['/alerts/0/title']);
      assert.match(bad.body.data.errors[0].message, /annotations\.summary/);
      const sent = await h.ingest(integ.path, s);
      assert.equal(sent.status, 400);
      assert.deepEqual(bad.body.data.errors, sent.body.details, 'preview shows exactly the details ingest answers with');

      const std = await create(org, { name: 'std' });
      const notObject = await preview(org, std.id, { payload: 'just text' });
      assert.equal(notObject.status, 200);
      assert.equal(notObject.body.data.ok, false);
      assert.deepEqual(paths(notObject.body.data.errors), ['']);
      const counts = await get(org, std.id);
      assert.equal(counts.rejectedCount, 0, 'a failed preview is not a rejection');
    });

    it('an invalid unsaved mapping is 400 naming it', async () => {
      const org = await h.newOrg();
      const integ = await create(org, { name: 'x' });
      for (const [mapping, path] of [
        [{ fields: { titel: 'x' } }, '/mapping/fields/titel'],
        [{ fields: { title: '__proto__.x' } }, '/mapping/fields/title'],
        [{ defaults: { labels: 'x' } }, '/mapping/defaults/labels'],
        [{ severityMap: { p: 'urgent' } }, '/mapping/severityMap/p'],
      ] as const) {
        const r = await preview(org, integ.id, { payload: { title: 't', severity: 'low' }, mapping });
        assert.equal(r.status, 400, `${JSON.stringify(mapping)}: ${r.raw}`);
        assert.equal(r.body.code, 'VALIDATION_ERROR');
        assert.ok(paths(r.body.details).includes(path), JSON.stringify(r.body.details));
      }
      const noPayload = await preview(org, integ.id, { mapping: null });
      assert.equal(noPayload.status, 400);
      assert.ok(paths(noPayload.body.details).includes('/payload'));
      const extra = await preview(org, integ.id, { payload: {}, save: true });
      assert.equal(extra.status, 400);
    });

    it('another organization\'s integration is 404 like a missing one; integrations:read is enough, without it 403', async () => {
      const org = await h.newOrg();
      const other = await h.newOrg();
      const theirs = await create(other, { name: 'theirs', preset: 'alertmanager' });
      const body = { payload: preset('alertmanager').sample };
      const foreign = await preview(org, theirs.id, body);
      const missing = await preview(org, 'int_doesnotexist', body);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, 'NOT_FOUND');
      assert.deepEqual(foreign.body, missing.body);

      const mine = await create(org, { name: 'mine', preset: 'alertmanager' });
      const ro = await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'ro', scopes: ['integrations:read'] } });
      const ok = await preview(org, mine.id, body, ro.body.data.key);
      assert.equal(ok.status, 200, ok.raw);
      assert.equal(ok.body.data.ok, true);
      const noRead = await h.req('POST', '/api/v1/api-keys', { key: org.key, body: { name: 'w', scopes: ['integrations:write', 'alerts:read'] } });
      const forbidden = await preview(org, mine.id, body, noRead.body.data.key);
      assert.equal(forbidden.status, 403);
      assert.match(forbidden.body.error, /integrations:read/);
      assert.equal((await preview(org, mine.id, body, null as never)).status, 401);
    });
  });
});
