import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHarness, type Harness } from '../support/harness.ts';

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-Ab12Cd34.js"></script></head><body><div id="root"></div></body></html>';
const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

function assertSecurityHeaders(headers: Record<string, unknown>, what: string): void {
  const csp = String(headers['content-security-policy']);
  for (const directive of ["default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'"]) {
    assert.ok(csp.includes(directive), `${what}: CSP lacks ${directive}`);
  }
  assert.ok(!csp.includes('unsafe-inline') && !csp.includes('unsafe-eval'), `${what}: CSP allows inline code`);
  assert.equal(headers['x-frame-options'], 'DENY', what);
  assert.equal(headers['x-content-type-options'], 'nosniff', what);
  assert.equal(headers['referrer-policy'], 'same-origin', what);
}

describe('the dashboard, served by the API process', () => {
  let h: Harness;
  let dist: string;
  before(async () => {
    dist = mkdtempSync(path.join(os.tmpdir(), 'alertflow-dist-'));
    mkdirSync(path.join(dist, 'assets'));
    writeFileSync(path.join(dist, 'index.html'), INDEX);
    writeFileSync(path.join(dist, 'assets', 'index-Ab12Cd34.js'), 'console.log(1)');
    h = await startHarness('sqlite', { DASHBOARD_DIR: dist });
  });
  after(async () => {
    await h.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const get = (url: string, headers: Record<string, string> = HTML, method: 'GET' | 'HEAD' | 'POST' = 'GET') => h.app.inject({ method, url, headers });

  it('serves index.html at / and for client-side routes, never cached, with the security headers', async () => {
    for (const url of ['/', '/alerts/alt_123', '/settings/api-keys', '/setup?token=abc']) {
      const r = await get(url);
      assert.equal(r.statusCode, 200, url);
      assert.equal(r.body, INDEX, url);
      assert.match(String(r.headers['content-type']), /text\/html/);
      assert.equal(r.headers['cache-control'], 'no-cache', url);
      assertSecurityHeaders(r.headers, url);
    }
    assert.equal((await get('/alerts/alt_123', HTML, 'HEAD')).statusCode, 200);
  });

  it('serves hashed assets with a long cache lifetime', async () => {
    const r = await get('/assets/index-Ab12Cd34.js', { accept: '*/*' });
    assert.equal(r.statusCode, 200);
    assert.equal(r.body, 'console.log(1)');
    assert.equal(r.headers['cache-control'], 'public, max-age=31536000, immutable');
    assertSecurityHeaders(r.headers, 'asset');
    assert.equal((await get('/assets/missing.js', { accept: '*/*' })).statusCode, 404);
  });

  it('never shadows the API, the probes or the ingest route; unknown API paths keep the JSON 404', async () => {
    for (const url of ['/api/v1/nope', '/api/nope', '/api', '/api/inbound/webhook/some-token']) {
      const r = await get(url);
      assert.equal(r.statusCode, 404, url);
      assert.equal(JSON.parse(r.body).code, 'NOT_FOUND', url);
      assert.ok(!r.body.includes('some-token'), 'the ingest token is not echoed');
    }
    assert.equal(JSON.parse((await get('/healthz')).body).status, 'ok');
    assert.equal((await get('/api/v1/alerts')).statusCode, 401, 'the API still asks for credentials');
    const api = await h.req('GET', '/api/v1/alerts');
    assert.equal(api.status, 200);
    assert.equal(api.headers['content-security-policy'], undefined, 'API responses are JSON, not pages');
    const ingest = await h.app.inject({ method: 'POST', url: '/api/inbound/webhook/nope', headers: { 'content-type': 'application/json' }, payload: '{}' });
    assert.equal(ingest.statusCode, 401);
  });

  it('does not answer non-page requests with the page', async () => {
    assert.equal((await get('/alerts/alt_123', { accept: 'application/json' })).statusCode, 404);
    assert.equal((await h.app.inject({ method: 'POST', url: '/alerts/alt_123', headers: HTML })).statusCode, 404);
  });
});

describe('without a built dashboard', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { DASHBOARD_DIR: path.join(os.tmpdir(), 'alertflow-no-such-dist') });
  });
  after(() => h.close());

  it('answers / with a short plain message and keeps the API working', async () => {
    const r = await h.app.inject({ method: 'GET', url: '/' });
    assert.equal(r.statusCode, 200);
    assert.match(String(r.headers['content-type']), /text\/plain/);
    assert.match(r.body, /dashboard is not built/);
    assert.equal((await h.req('GET', '/api/v1/alerts')).status, 200);
    assert.equal((await h.app.inject({ method: 'GET', url: '/api/v1/nope', headers: HTML })).statusCode, 404);
  });
});
