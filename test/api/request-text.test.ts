import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Issue 25 rows 6 and 7: text PostgreSQL cannot store (a lone surrogate, U+0000) is settled where request
 * text enters (src/http/json-body.ts), so both stores keep the same value and answer the same way: a lone
 * surrogate becomes U+FFFD and the alert is stored (2xx); a non-JSON body holding a raw 0x00 is
 * 400 INVALID_JSON in the envelope, and logged as the integration's rejection.
 */
const LONE = '\\ud800';

eachStore('text a store cannot keep', { together: true }, (kind) => {
  let h: Harness;
  before(async () => {
    h = await startHarness(kind);
  });
  after(() => h.close());

  /** A raw JSON text, escapes and all, as a sender writes it. */
  const raw = (path: string, text: string, key: string | null = null) => h.req('POST', path, { key, rawBody: text, headers: { 'content-type': 'application/json' } });

  it('a lone surrogate in a title, an unknown field, a label key or value is replaced by U+FFFD and the alert stored', async () => {
    const { path } = await h.integration();
    const r = await raw(path, `{"title":"x ${LONE}","severity":"low","extra":"${LONE}y","labels":{"k${LONE}":"v ${LONE}"},"fingerprint":"surrogates"}`);
    assert.equal(r.status, 200, r.raw);
    const alert = (await h.ok('GET', `/api/v1/alerts/${r.body.data.alerts[0].alertId}`)).data;
    assert.equal(alert.title, 'x \ufffd');
    assert.deepEqual(alert.labels, { 'k\ufffd': 'v \ufffd' });
    assert.equal(alert.payload.extra, '\ufffdy');
    // A pair written as escapes is a character, kept as it is.
    const pair = await raw(path, '{"title":"\\ud83d\\ude00","severity":"low"}');
    assert.equal((await h.ok('GET', `/api/v1/alerts/${pair.body.data.alerts[0].alertId}`)).data.title, '😀');
  });

  it('the same in a REST body (a client\'s name) and a query string', async () => {
    const r = await raw('/api/v1/clients', `{"name":"Acme ${LONE}","slug":"acme-text"}`, h.org.key);
    assert.equal(r.status, 201, r.raw);
    assert.equal(r.body.data.name, 'Acme \ufffd');
    const q = await h.req('GET', '/api/v1/alerts?q=%ED%A0%80');
    assert.equal(q.status, 200, q.raw);
    const nul = await h.req('GET', '/api/v1/alerts?q=a%00b');
    assert.equal(nul.status, 200, nul.raw);
  });

  it('a raw 0x00 in a body that is not JSON is 400 INVALID_JSON in the envelope, and logged as a rejection', async () => {
    const { id, path } = await h.integration();
    const r = await h.req('POST', path, { key: null, rawBody: Buffer.from('not json \u0000 at all \ud800', 'utf8'), headers: { 'content-type': 'application/json' } });
    assert.equal(r.status, 400, r.raw);
    assert.deepEqual(Object.keys(r.body).sort(), ['code', 'details', 'error']);
    assert.equal(r.body.code, 'INVALID_JSON');
    const rejections = (await h.ok('GET', `/api/v1/integrations/${id}/rejections`)).data;
    assert.equal(rejections.length, 1);
    assert.equal(rejections[0].status, 400);
    assert.deepEqual([rejections[0].code, rejections[0].payload], ['INVALID_JSON', 'not json  at all \ufffd']);
  });
});
