import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startHarness, type Harness, type Org } from '../support/harness.ts';
import { eachStore } from '../support/stores.ts';

/**
 * Issue 25 row 2: a tenant that declares large bodies and sends them a byte at a time must not hold the
 * process-wide bound on bodies in flight (every other tenant got 503 for minutes). Its bodies are dropped
 * with 408 once they are late, and it never holds more than a quarter of the bound, so another
 * organization's ingest and REST writes keep their 2xx meanwhile.
 */
const MiB = 1024 * 1024;
const SLOW = 16;
/** A generous bound for one of the other tenant's requests: the point is its status, not its speed. */
const PATIENCE_MS = 15_000;

interface Raw {
  status: number;
  body: { code?: string; error?: string };
  closed: boolean;
}

/**
 * A request whose head declares a 1 MiB body, then a byte of it now and then: resolves with the server's
 * answer and whether the server then closed the connection (it must, having read the body only in part).
 */
function slowBody(port: number, path: string): Promise<Raw> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let answer: Omit<Raw, 'closed'> | null = null;
    const drip = setInterval(() => socket.write(' '), 300);
    const settle = (closed: boolean) => {
      clearInterval(drip);
      socket.destroy();
      resolve({ ...(answer ?? { status: 0, body: {} }), closed });
    };
    socket.on('data', (chunk) => {
      text += chunk.toString();
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? -1);
      if (answer || end < 0 || text.length < end + 4 + length) return;
      answer = { status: Number(text.split(' ')[1]), body: JSON.parse(text.slice(end + 4, end + 4 + length)) };
      // The server closes a connection whose body it will not read: a moment to see it do so.
      setTimeout(() => settle(false), 2000);
    });
    socket.on('error', () => {});
    socket.on('close', () => settle(true));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${MiB}\r\n\r\n{`);
  });
}

function post(port: number, path: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('BODY_TIMEOUT_SECONDS', () => {
  it('defaults to 10 and takes 1–300', () => {
    assert.equal(loadConfig({}).bodyTimeoutSeconds, 10);
    assert.equal(loadConfig({ BODY_TIMEOUT_SECONDS: '300' }).bodyTimeoutSeconds, 300);
    assert.throws(() => loadConfig({ BODY_TIMEOUT_SECONDS: '0' }), ConfigError);
  });
});

// One kind at a time: its tests depend on request timing (CPU bounds, body timeouts), which the other kind's work on this thread would shift.
eachStore('slow bodies of one tenant', { together: false }, (kind) => {
  let h: Harness;
  let port: number;
  let other: Org;
  before(async () => {
    h = await startHarness(kind, { MAX_BODY_BYTES_IN_FLIGHT: String(4 * MiB), BODY_TIMEOUT_SECONDS: '2' });
    other = await h.newOrg('Other');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    port = (h.app.server.address() as net.AddressInfo).port;
  });
  after(() => h.close());

  it('are dropped with 408 once late and hold only the tenant\'s share; another tenant\'s ingest and REST writes keep their 2xx', { timeout: 60_000 }, async () => {
    const hostile = await h.integration();
    const theirs = await h.integration(other);
    const flood = Array.from({ length: SLOW }, () => slowBody(port, hostile.path));
    const answers: Array<{ status: number; ms: number }> = [];
    for (let i = 0; i < 10; i++) {
      answers.push(await post(port, theirs.path, JSON.stringify({ title: `other ${i}`, severity: 'low', pad: 'x'.repeat(200 * 1024) })));
      if (i % 3 === 0) answers.push(await post(port, '/api/v1/clients', JSON.stringify({ name: `Client ${i}`, slug: `client-${i}` }), { authorization: `Bearer ${other.key}` }));
    }
    assert.deepEqual(answers.map((a) => a.status), answers.map((a) => (a.status === 201 ? 201 : 200)), JSON.stringify(answers));
    assert.ok(answers.every((a) => a.ms < PATIENCE_MS), JSON.stringify(answers));

    const slow = await Promise.all(flood);
    const by = (status: number) => slow.filter((r) => r.status === status);
    assert.equal(by(408).length + by(503).length, SLOW, JSON.stringify(slow.map((r) => r.status)));
    assert.ok(by(408).length >= 1 && by(408).length <= 4, 'a quarter of 4 MiB: one 1 MiB body at a time, more once they are dropped');
    for (const r of by(408)) assert.deepEqual([r.body.code, r.closed], ['REQUEST_TIMEOUT', true]);
    for (const r of by(503)) assert.deepEqual([r.body.code, r.closed], ['OVERLOADED', true]);
    // Everything given back: the whole bound takes a body of the largest size again, from the same tenant.
    assert.equal((await post(port, hostile.path, JSON.stringify({ title: 'after', severity: 'low', pad: 'x'.repeat(MiB - 100) }))).status, 200);
  });
});
