import fc from 'fast-check';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseJsonBody } from '../../src/http/json-body.ts';
import { normalize } from '../../src/modules/ingest/normalize-fns.ts';

/** Payload-like objects: the standard fields with values of any JSON type, plus hostile keys. */
const field = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.jsonValue());
const hostileKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty');
const payload = fc.record({
  title: field, severity: fc.oneof(fc.constantFrom('critical', 'HIGH', 'Medium', 'low', 'info', 'bogus'), field),
  status: fc.oneof(fc.constantFrom('firing', 'RESOLVED', 'acknowledged', 'suppressed', 'open'), field),
  source: field, description: field, fingerprint: field, dedup_key: field,
  labels: fc.oneof(fc.dictionary(fc.oneof(fc.string(), hostileKey), field), field),
  annotations: fc.oneof(fc.dictionary(fc.oneof(fc.string(), hostileKey), field), field),
}, { requiredKeys: [] });

describe('normalize: properties', () => {
  it('never throws, and answers either a stored form or a list of errors with paths', () => {
    fc.assert(fc.property(fc.oneof(payload, fc.jsonValue()), (p) => {
      const r = normalize(p);
      if (r.ok) {
        assert.ok(typeof r.alert.fingerprint === 'string' && r.alert.fingerprint.length > 0);
        for (const v of Object.values(r.alert.labels)) assert.equal(typeof v, 'string');
      } else {
        assert.ok(r.errors.length > 0 && r.errors.every((e) => typeof e.path === 'string' && e.message.length > 0));
      }
    }), { numRuns: 2000 });
  });

  it('never changes Object.prototype, whatever keys a JSON body carries', () => {
    const before = Object.getOwnPropertyNames(Object.prototype).sort();
    fc.assert(fc.property(payload, (p) => {
      // Through the real body parser, as a payload arrives: hostile keys are refused there or kept as data.
      let parsed: unknown;
      try {
        parsed = parseJsonBody(JSON.stringify(p).replace(/"(toString|prototype)"/g, '"__proto__"'));
      } catch {
        return;
      }
      normalize(parsed);
      assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), before);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    }), { numRuns: 1000 });
  });
});
