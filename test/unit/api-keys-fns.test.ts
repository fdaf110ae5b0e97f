import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { generateKey, hashKey, isWellFormedKey, revocationRefusal, visiblePrefix } from '../../src/modules/api-keys/api-keys-fns.ts';

describe('API key format', () => {
  it('has the environment prefix, a 32-character base62 secret and a checksum', () => {
    const key = generateKey('live');
    assert.match(key, /^af_live_[0-9A-Za-z]{38}$/);
    assert.ok(isWellFormedKey(key, 'live'));
    assert.ok(!isWellFormedKey(key, 'test'), 'a live key is refused where test keys are expected');
  });

  it('catches any single-character change through the checksum', () => {
    const key = generateKey('test');
    for (let i = 'af_test_'.length; i < key.length; i++) {
      const c = key[i] === 'a' ? 'b' : 'a';
      assert.ok(!isWellFormedKey(key.slice(0, i) + c + key.slice(i + 1), 'test'), `change at ${i} went unnoticed`);
    }
  });

  it('rejects other shapes', () => {
    for (const bad of ['', 'af_test_', 'af_test_short', `xx_test_${'a'.repeat(38)}`, `af_test_${'a'.repeat(37)}!`, `af_test_${'a'.repeat(39)}`]) {
      assert.ok(!isWellFormedKey(bad, 'test'), bad);
    }
  });

  it('never repeats, hashes to 64 hex characters that do not contain the key, and shows only a prefix', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateKey('test')));
    assert.equal(keys.size, 1000);
    const key = [...keys][0] as string;
    assert.match(hashKey(key), /^[0-9a-f]{64}$/);
    assert.equal(hashKey(key), hashKey(key));
    assert.equal(visiblePrefix(key).length, 12);
    assert.ok(key.startsWith(visiblePrefix(key)));
  });
});

describe('revocation rules', () => {
  const owner = { id: 'owner', scopes: ['alerts:read', 'api_keys:write'] };
  const admin2 = { id: 'admin2', scopes: ['api_keys:write'] };
  const reader = { id: 'reader', scopes: ['alerts:read'] };
  const byKey = (scopes: string[]) => ({ scopes: new Set(scopes), byKey: true });
  const code = (r: ReturnType<typeof revocationRefusal>) => r?.code ?? null;

  it('a key revokes only keys within its own scopes', () => {
    assert.equal(code(revocationRefusal(reader, [owner, reader], byKey(['api_keys:write']))), 'FORBIDDEN');
    assert.match(revocationRefusal(reader, [owner, reader], byKey(['api_keys:write']))?.message ?? '', /alerts:read/);
    assert.equal(code(revocationRefusal(reader, [owner, reader], byKey(owner.scopes))), null);
  });

  it('the last usable api_keys:write key is refused to a key, allowed to a trusted caller or a signed-in owner', () => {
    assert.equal(code(revocationRefusal(owner, [owner, reader], byKey(owner.scopes))), 'CONFLICT');
    assert.equal(code(revocationRefusal(owner, [owner, admin2], byKey(owner.scopes))), null);
    assert.equal(code(revocationRefusal(owner, [owner, reader], { scopes: null, byKey: false })), null);
    assert.equal(code(revocationRefusal(owner, [owner, reader], { scopes: new Set(owner.scopes), byKey: false })), null);
    // Missing scopes are named before the last-key rule is looked at.
    assert.equal(code(revocationRefusal(owner, [owner], byKey(['api_keys:write']))), 'FORBIDDEN');
  });
});
