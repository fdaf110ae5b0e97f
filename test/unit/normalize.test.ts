import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ALERT_LIMITS, deriveFingerprint, normalize } from '../../src/modules/ingest/normalize-fns.ts';

describe('normalize (standard payload)', () => {
  const ok = (payload: unknown) => {
    const r = normalize(payload);
    assert.ok(r.ok, JSON.stringify(r));
    return r.alert;
  };
  const errs = (payload: unknown) => {
    const r = normalize(payload);
    assert.ok(!r.ok, 'expected errors');
    return r.errors.map((e) => e.path);
  };

  it('lower-cases severity and status and defaults status to firing', () => {
    const a = ok({ title: 't', severity: 'CrItIcAl' });
    assert.equal(a.severity, 'critical');
    assert.equal(a.status, 'firing');
    assert.equal(ok({ title: 't', severity: 'low', status: 'ACKNOWLEDGED' }).status, 'acknowledged');
  });

  it('picks fingerprint, then dedup_key, then a hash of title and source', () => {
    assert.equal(ok({ title: 't', severity: 'low', fingerprint: 'f', dedup_key: 'd' }).fingerprint, 'f');
    assert.equal(ok({ title: 't', severity: 'low', dedup_key: 'd' }).fingerprint, 'd');
    assert.equal(ok({ title: 't', severity: 'low', dedup_key: 12345 }).fingerprint, '12345');
    assert.equal(ok({ title: 't', severity: 'low', source: 's' }).fingerprint, deriveFingerprint('t', 's'));
    assert.notEqual(deriveFingerprint('t', 's'), deriveFingerprint('t', null));
    assert.notEqual(deriveFingerprint('ab', 'c'), deriveFingerprint('a', 'bc'), 'title/source boundary is not ambiguous');
  });

  it('requires title and severity unless resolved; resolved needs a key or a title', () => {
    assert.deepEqual(errs({}), ['/title', '/severity']);
    assert.deepEqual(errs({ title: '   ', severity: 'low' }), ['/title']);
    assert.equal(ok({ status: 'resolved', fingerprint: 'f' }).severity, null);
    assert.equal(ok({ status: 'resolved', title: 't' }).fingerprint, deriveFingerprint('t', null));
    assert.deepEqual(errs({ status: 'resolved' }), ['/fingerprint']);
  });

  it('keeps labels flat: scalars become strings, nested values are refused', () => {
    assert.deepEqual({ ...ok({ title: 't', severity: 'low', labels: { port: 80, up: true, host: 'a' } }).labels }, { port: '80', up: 'true', host: 'a' });
    assert.deepEqual(errs({ title: 't', severity: 'low', labels: { a: { b: 1 } } }), ['/labels/a']);
    assert.deepEqual(errs({ title: 't', severity: 'low', annotations: 'x' }), ['/annotations']);
  });

  it('stores a "__proto__" label as data without touching any prototype', () => {
    const payload = JSON.parse('{"title":"t","severity":"low","labels":{"__proto__":"x","constructor":"y"}}');
    const a = ok(payload);
    assert.equal(a.labels['__proto__'], 'x');
    assert.equal(({} as Record<string, unknown>).x, undefined);
    assert.equal(JSON.parse(JSON.stringify(a.labels)).constructor, 'y');
  });

  it('ignores unknown top-level fields and keeps the raw payload', () => {
    const payload = { title: 't', severity: 'info', vendor_specific: [1, 2] };
    assert.equal(ok(payload).payload, payload);
  });

  it('rejects non-objects and wrong types with a path for each problem', () => {
    assert.deepEqual(errs(null), ['']);
    assert.deepEqual(errs([{ title: 't' }]), ['']);
    assert.deepEqual(errs({ title: 't', severity: 'low', source: 5, description: [] }), ['/source', '/description']);
    assert.deepEqual(errs({ title: 'x'.repeat(5000), severity: 'low' }), ['/title']);
  });

  it('bounds every field: at the limit accepted, one over refused with the path named', () => {
    const L = ALERT_LIMITS;
    const entries = (n: number, value = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, value]));
    const base = { title: 't', severity: 'low' };
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>, string]> = [
      ['title', { title: 'x'.repeat(L.text) }, { title: 'x'.repeat(L.text + 1) }, '/title'],
      ['source', { source: 's'.repeat(L.text) }, { source: 's'.repeat(L.text + 1) }, '/source'],
      ['description', { description: 'd'.repeat(L.description) }, { description: 'd'.repeat(L.description + 1) }, '/description'],
      ['label count', { labels: entries(L.entries) }, { labels: entries(L.entries + 1) }, '/labels'],
      ['annotation count', { annotations: entries(L.entries) }, { annotations: entries(L.entries + 1) }, '/annotations'],
      ['label key', { labels: { ['k'.repeat(L.entryKey)]: 'v' } }, { labels: { ['k'.repeat(L.entryKey + 1)]: 'v' } }, `/labels/${'k'.repeat(32)}…`],
      ['label value', { labels: { k: 'v'.repeat(L.entryValue) } }, { labels: { k: 'v'.repeat(L.entryValue + 1) } }, '/labels/k'],
      ['annotation value', { annotations: { k: 'v'.repeat(L.entryValue) } }, { annotations: { k: 'v'.repeat(L.entryValue + 1) } }, '/annotations/k'],
      ['labels as JSON', { labels: entries(3, 'v'.repeat(4000)) }, { labels: entries(5, 'v'.repeat(4000)) }, '/labels'],
    ];
    for (const [what, fits, over, path] of cases) {
      ok({ ...base, ...fits });
      assert.deepEqual(errs({ ...base, ...over }), [path], what);
    }
    assert.deepEqual(errs({ ...base, labels: { ['k'.repeat(100_000)]: 'v' } }), [`/labels/${'k'.repeat(32)}…`], 'a 100,000-character key is refused, named by its start');
  });
});
