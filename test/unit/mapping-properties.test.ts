import fc from 'fast-check';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkMapping, type Mapping } from '../../src/modules/ingest/mapping-fns.ts';
import { normalizePayload } from '../../src/modules/ingest/normalize-fns.ts';

/** Path segments biased towards what could hurt: prototype names, indexes, empty segments, the root marker. */
const segment = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'polluted', 'alerts', 'labels', 'title', '0', '1', '', '$'),
  fc.string({ maxLength: 6 }),
);
const path = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join('.')),
  fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => `$.${s.join('.')}`),
);
const target = fc.oneof(
  fc.constantFrom('title', 'severity', 'status', 'source', 'description', 'fingerprint', 'dedup_key', 'labels', 'annotations'),
  segment.map((k) => `labels.${k}`),
  segment.map((k) => `annotations.${k}`),
  fc.string({ maxLength: 8 }),
);
const value = fc.oneof(fc.constantFrom('critical', 'P1', '*', 'firing', 'resolved', 'bogus'), fc.string({ maxLength: 8 }));
const mapping: fc.Arbitrary<Mapping> = fc.record({
  itemsPath: path,
  fields: fc.dictionary(target, fc.oneof(path, fc.array(path, { minLength: 1, maxLength: 3 })), { maxKeys: 6 }),
  severityMap: fc.dictionary(value, fc.constantFrom('critical', 'high', 'medium', 'low', 'info')),
  statusMap: fc.dictionary(value, fc.constantFrom('firing', 'resolved', 'acknowledged', 'suppressed')),
  defaults: fc.dictionary(target, fc.string({ maxLength: 8 }), { maxKeys: 4 }),
}, { requiredKeys: [] }) as fc.Arbitrary<Mapping>;

/** Payloads shaped like a sender's, with nested arrays and prototype-named keys as plain data. */
const key = fc.oneof(segment, fc.string({ maxLength: 6 }));
const payload = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), fc.array(tie('node'), { maxLength: 4 }), fc.dictionary(key, tie('node'), { maxKeys: 5 })),
})).node;

describe('mapping: properties', () => {
  it('never throws and never changes Object.prototype, for any mapping and payload', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    fc.assert(fc.property(mapping, payload, (m, p) => {
      // JSON round trip: a body arrives as parsed JSON, where "__proto__" is an own key.
      const body: unknown = JSON.parse(JSON.stringify(p) ?? 'null');
      checkMapping(m);
      const r = normalizePayload(m, body);
      if (r.ok) {
        assert.ok(r.alerts.length > 0);
        for (const a of r.alerts) for (const v of Object.values(a.labels)) assert.equal(typeof v, 'string');
      }
      else assert.ok(r.errors.length > 0 && r.errors.every((e) => typeof e.path === 'string' && e.message.length > 0));
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    }), { numRuns: 3000 });
    assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
  });

});
