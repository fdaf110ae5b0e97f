import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMapping, checkMapping, parsePath, readPath, type Mapping } from '../../src/modules/ingest/mapping-fns.ts';
import { normalizePayload } from '../../src/modules/ingest/normalize-fns.ts';

const mapped = (m: Mapping, payload: unknown) => {
  const r = normalizePayload(m, payload);
  assert.ok(r.ok, JSON.stringify(r));
  return r.alerts;
};
const errorsOf = (m: Mapping, payload: unknown) => {
  const r = normalizePayload(m, payload);
  assert.ok(!r.ok, 'expected errors');
  return r.errors;
};

describe('mapping paths', () => {
  const payload = { a: { b: [{ c: 'deep' }, { c: 'second' }] }, n: 0, empty: '', list: ['x', 'y'] };
  const cases: Array<[string, unknown]> = [
    ['a.b.0.c', 'deep'],
    ['a.b.1.c', 'second'],
    ['a.b.2.c', undefined],
    ['list.1', 'y'],
    ['list.x', undefined],
    ['n', 0],
    ['a.missing.deeper', undefined],
    ['$.a.b.0.c', 'deep'],
    // Inherited members are never read: only own properties and array indexes.
    ['a.toString', undefined],
    ['list.length', undefined],
    ['a.hasOwnProperty', undefined],
  ];
  for (const [path, expected] of cases) {
    it(`reads ${path}`, () => {
      const parsed = parsePath(path);
      assert.ok(parsed);
      assert.deepEqual(readPath(payload, payload, parsed), expected);
    });
  }

  it('resolves `$.` against the payload root and other paths against the element', () => {
    const root = { receiver: 'r', alerts: [{ receiver: 'element' }] };
    assert.equal(readPath(root, root.alerts[0], parsePath('$.receiver')!), 'r');
    assert.equal(readPath(root, root.alerts[0], parsePath('receiver')!), 'element');
  });

  const malformed = ['', 'a..b', '.a', 'a.', '$.', '__proto__', '__proto__.polluted', 'constructor.prototype', 'a.prototype', 'x.constructor', 'a'.repeat(513), Array(33).fill('a').join('.')];
  for (const path of malformed) {
    it(`refuses the path ${JSON.stringify(path.slice(0, 30))}`, () => assert.equal(parsePath(path), null));
  }
});

describe('checkMapping', () => {
  const cases: Array<[string, Mapping, string[]]> = [
    ['a valid mapping', { itemsPath: 'alerts', fields: { title: 'a', 'labels.host': 'b', labels: 'l' }, defaults: { severity: 'high', 'labels.env': 'prod' } }, []],
    ['an unknown target', { fields: { titel: 'x' } }, ['/mapping/fields/titel']],
    ['a target under an unknown object', { fields: { 'tags.x': 'x' } }, ['/mapping/fields/tags.x']],
    ['a prototype label key', { fields: { 'labels.__proto__': 'x' } }, ['/mapping/fields/labels.__proto__']],
    ['a malformed path', { fields: { title: 'a..b' } }, ['/mapping/fields/title']],
    ['a prototype path', { fields: { title: '__proto__.polluted' } }, ['/mapping/fields/title']],
    ['a bad path in a fallback list', { fields: { title: ['ok', 'constructor.prototype'] } }, ['/mapping/fields/title/1']],
    ['a root itemsPath', { itemsPath: '$.alerts' }, ['/mapping/itemsPath']],
    ['a whole-object default', { defaults: { labels: 'x' } }, ['/mapping/defaults/labels']],
    ['an unknown default', { defaults: { nope: 'x' } }, ['/mapping/defaults/nope']],
  ];
  for (const [name, m, paths] of cases) {
    it(`reports ${name}`, () => assert.deepEqual(checkMapping(m).map((e) => e.path), paths));
  }
});

describe('applying a mapping', () => {
  it('maps fields, tries fallback paths in order, and passes unmapped standard fields through', () => {
    const [a] = mapped(
      { fields: { title: ['summary', 'name'], severity: 'level' } },
      { name: 'Disk full', level: 'critical', source: 'cron', description: 'kept', labels: { host: 'db-1' } },
    );
    assert.equal(a?.title, 'Disk full');
    assert.equal(a?.severity, 'critical');
    assert.equal(a?.source, 'cron');
    assert.equal(a?.description, 'kept');
    assert.deepEqual({ ...a?.labels }, { host: 'db-1' });
  });

  it('takes labels whole and adds labels.<key> values to them', () => {
    const [a] = mapped(
      { fields: { title: 't', severity: 's', labels: 'tags', 'labels.host': 'meta.host', 'annotations.runbook': 'links.0' } },
      { t: 'x', s: 'low', tags: { env: 'prod' }, meta: { host: 'web-1' }, links: ['https://runbook'] },
    );
    assert.deepEqual({ ...a?.labels }, { env: 'prod', host: 'web-1' });
    assert.deepEqual({ ...a?.annotations }, { runbook: 'https://runbook' });
  });

  it('fills empty fields from defaults, and only empty ones', () => {
    const m: Mapping = { fields: { title: 'name', severity: 'sev' }, defaults: { severity: 'high', source: 'tool', 'labels.env': 'prod' } };
    const [a] = mapped(m, { name: 'x', sev: '' });
    assert.equal(a?.severity, 'high');
    assert.equal(a?.source, 'tool');
    assert.equal(a?.labels.env, 'prod');
    const [b] = mapped(m, { name: 'x', sev: 'low', labels: { env: 'staging' } });
    assert.equal(b?.severity, 'low');
    assert.equal(b?.labels.env, 'staging');
  });

  const severityCases: Array<[unknown, string | null]> = [
    ['P1', 'critical'], // exact
    ['p1', 'critical'], // case-insensitive
    ['HIGH', 'high'], // a standard value passes through
    ['whatever', 'medium'], // caught by `*`
  ];
  for (const [value, expected] of severityCases) {
    it(`translates severity ${JSON.stringify(value)} to ${expected}`, () => {
      const [a] = mapped({ fields: { title: 't', severity: 'p' }, severityMap: { P1: 'critical', '*': 'medium' } }, { t: 'x', p: value });
      assert.equal(a?.severity, expected);
    });
  }

  it('refuses an unmapped, non-standard severity and names the mapped path', () => {
    const [e] = errorsOf({ fields: { title: 't', severity: 'p' }, severityMap: { P1: 'critical' } }, { t: 'x', p: 'P9' });
    assert.equal(e?.path, '/severity');
    assert.match(e?.message ?? '', /must be one of .* \(mapped from "p"\)/);
  });

  it('maps numeric sender states through the status map', () => {
    const m: Mapping = { fields: { title: 'name', status: 'state' }, statusMap: { '0': 'firing', '1': 'resolved' }, defaults: { severity: 'high' } };
    assert.equal(mapped(m, { name: 'x', state: 0 })[0]?.status, 'firing');
    assert.equal(mapped(m, { name: 'x', state: 1 })[0]?.status, 'resolved');
  });

  it('keeps numeric ids as text', () => {
    const [a] = mapped({ fields: { title: 'name', severity: 'sev', fingerprint: 'id' } }, { name: 'x', sev: 'low', id: 4913027 });
    assert.equal(a?.fingerprint, '4913027');
  });

  it('keeps the sender element as the raw payload of each alert', () => {
    const payload = { receiver: 'r', alerts: [{ n: 'a', s: 'low' }, { n: 'b', s: 'low' }] };
    const alerts = mapped({ itemsPath: 'alerts', fields: { title: 'n', severity: 's' } }, payload);
    assert.deepEqual(alerts.map((a) => a.payload), payload.alerts);
  });
});

describe('payloads with several alerts', () => {
  const m: Mapping = { itemsPath: 'data.alerts', fields: { title: 'name', severity: 'sev', 'labels.receiver': '$.receiver' } };

  it('gives one alert per element, reading `$.` paths from the root', () => {
    const alerts = mapped(m, { receiver: 'ops', data: { alerts: [{ name: 'a', sev: 'low' }, { name: 'b', sev: 'high' }] } });
    assert.deepEqual(alerts.map((a) => [a.title, a.severity, a.labels.receiver]), [['a', 'low', 'ops'], ['b', 'high', 'ops']]);
  });

  it('fails the whole payload when one element is bad, naming the element and the mapped path', () => {
    const errors = errorsOf(m, { data: { alerts: [{ name: 'a', sev: 'low' }, { sev: 'low' }, { name: 'c', sev: 'bad' }] } });
    assert.deepEqual(errors.map((e) => e.path), ['/data/alerts/1/title', '/data/alerts/2/severity']);
    assert.match(errors[0]?.message ?? '', /is required: the mapped path "name" is empty/);
  });

  it('says when the items path holds no array, an empty one, or too many alerts', () => {
    assert.deepEqual(errorsOf(m, { data: { alerts: 'nope' } }).map((e) => e.path), ['/data/alerts']);
    assert.match(errorsOf(m, { data: { alerts: [] } })[0]?.message ?? '', /holds no alerts/);
    assert.match(errorsOf(m, { data: { alerts: Array(1001).fill({ name: 'a', sev: 'low' }) } })[0]?.message ?? '', /at most 1000/);
    assert.deepEqual(errorsOf(m, [1, 2]).map((e) => e.path), ['/data/alerts']);
  });

  it('reports an element that is not an object', () => {
    assert.deepEqual(errorsOf(m, { data: { alerts: ['text'] } }).map((e) => e.path), ['/data/alerts/0/title', '/data/alerts/0/severity']);
  });
});

describe('prototype safety', () => {
  it('never writes through a `__proto__` label key or reads through prototype segments', () => {
    // Unchecked mappings (as if the save-time check were bypassed) are still harmless.
    const m = { fields: { title: 'constructor.name', severity: '__proto__', 'labels.__proto__': 'x', 'labels.constructor': 'x' }, defaults: { severity: 'low', 'labels.__proto__': 'y' } } as Mapping;
    const r = applyMapping(m, JSON.parse('{"x": {"polluted": true}}'));
    assert.ok(r.ok);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(r.items[0]?.payload.title, undefined);
    assert.equal(r.items[0]?.payload.severity, 'low');
  });
});
