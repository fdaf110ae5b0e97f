import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

describe('TRUST_PROXY configuration', () => {
  it('reads booleans, hop counts and address lists, and refuses anything else naming the variable', () => {
    assert.equal(loadConfig({}).trustProxy, false);
    assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.deepEqual(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy, ['10.0.0.0/8', '127.0.0.1', '::1']);
    for (const bad of ['yes', '10.0.0.0/33', 'proxy.local', '1.2.3.4/8/1']) {
      assert.throws(() => loadConfig({ TRUST_PROXY: bad }), (e: unknown) => e instanceof ConfigError && /TRUST_PROXY/.test(e.message), bad);
    }
  });
});

eachStore('failed-login limit behind a trusted proxy', { together: true }, (kind) => {
  let h: Harness;
  before(async () => { h = await startHarness(kind, { TRUST_PROXY: '127.0.0.1', RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: '3' }); });
  after(() => h.close());

  it('counts failures per forwarded client, so one bad client behind the proxy does not slow the others', async () => {
    const from = (client: string, key: string | null) =>
      h.req('GET', '/api/v1/alerts', { key, headers: { 'x-forwarded-for': client } });
    for (let i = 0; i < 3; i++) assert.equal((await from('203.0.113.7', 'af_test_wrong')).status, 401);
    const blocked = await from('203.0.113.7', 'af_test_wrong');
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.code, 'RATE_LIMITED');
    assert.equal((await from('203.0.113.7', h.org.key)).status, 200, 'a valid key from that client still works');
    assert.equal((await from('198.51.100.20', 'af_test_wrong')).status, 401, 'another client behind the same proxy is counted apart');
  });

  it('ignores X-Forwarded-For from an untrusted sender, so rotating it does not escape the limit', async () => {
    const direct = (forwarded: string, key: string) =>
      h.req('GET', '/api/v1/alerts', { key, ip: '192.0.2.50', headers: { 'x-forwarded-for': forwarded } });
    for (let i = 0; i < 3; i++) assert.equal((await direct(`198.51.100.${i}`, 'af_test_wrong')).status, 401);
    assert.equal((await direct('198.51.100.200', 'af_test_wrong')).status, 429);
    assert.equal((await direct('198.51.100.201', h.org.key)).status, 200, 'a valid key is never refused for its address');
  });
});
