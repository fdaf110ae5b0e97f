import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startHarness, type Harness } from '../support/harness.ts';
import { sleep } from '../support/process.ts';

const MiB = 1024 * 1024;
/** Two of these do not fit in the smallest bound (one body of the largest size, 1 MiB); one does. */
const BODY = 700 * 1024;

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { error?: string; code?: string; details?: unknown };
}

/** A real request over a socket (inject has none to hold open or abort). */
function send(port: number, method: string, path: string, body: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { text += c; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: text === '' ? {} : JSON.parse(text) }));
    });
    // The server may answer (503) and go on discarding the rest: a reset while still writing is no failure.
    req.on('error', reject);
    req.end(body);
  });
}

/** A body of exactly `size` bytes: a valid alert (its extra field is ignored by ingest). */
function alertOfSize(title: string, size: number): string {
  const base = JSON.stringify({ title, severity: 'low', pad: '' });
  return JSON.stringify({ title, severity: 'low', pad: 'x'.repeat(size - base.length) });
}

describe('MAX_BODY_BYTES_IN_FLIGHT', () => {
  it('defaults to 16 MiB and is at least one body of the largest size (1 MiB)', () => {
    assert.equal(loadConfig({}).maxBodyBytesInFlight, 16 * MiB);
    assert.equal(loadConfig({ MAX_BODY_BYTES_IN_FLIGHT: String(MiB) }).maxBodyBytesInFlight, MiB);
    assert.throws(() => loadConfig({ MAX_BODY_BYTES_IN_FLIGHT: String(MiB - 1) }), ConfigError);
    assert.throws(() => loadConfig({ MAX_BODY_BYTES_IN_FLIGHT: '16MiB' }), ConfigError);
  });
});

for (const kind of ['sqlite', 'postgres'] as const) {
  describe(`request bodies in flight are bounded (${kind})`, () => {
    let h: Harness;
    let port: number;
    let ingestPath: string;
    before(async () => {
      h = await startHarness(kind, { MAX_BODY_BYTES_IN_FLIGHT: String(MiB) });
      ingestPath = (await h.integration()).path;
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      port = (h.app.server.address() as net.AddressInfo).port;
    });
    after(() => h.close());

    const ingest = (body: string, headers: Record<string, string> = {}) => send(port, 'POST', ingestPath, body, headers);
    const alertCount = async () => (await h.ok('GET', '/api/v1/alerts?status=firing,resolved,acknowledged,suppressed')).meta.total as number;
    const integrationCount = async () => (await h.ok('GET', '/api/v1/integrations')).meta.total as number;
    /** A probe that would store nothing even if taken (it is not JSON): 503 while the bound is full, else 400. */
    const probe = async (): Promise<boolean> => {
      const r = await ingest('x'.repeat(BODY));
      assert.ok(r.status === 503 || r.status === 400, `probe: ${r.status} ${JSON.stringify(r.body)}`);
      return r.status === 503;
    };
    /**
     * A request whose head and first bytes are sent and whose body never completes: it holds its bytes until
     * its socket is destroyed. Returned once it holds them (the probe is refused); should a probe have been
     * in flight when it arrived, it was itself refused (an answer on its socket) and is sent again.
     */
    const hold = async (head: string, firstBytes: string): Promise<net.Socket> => {
      for (let i = 0; i < 100; i += 1) {
        const socket = net.connect(port, '127.0.0.1');
        let answered = false;
        socket.on('data', () => { answered = true; });
        socket.on('error', () => {});
        socket.write(`${head}\r\n\r\n${firstBytes}`);
        await sleep(20);
        if (!answered && await probe()) return socket;
        socket.destroy();
      }
      assert.fail('the held request never held its bytes');
    };
    const holdIngest = (firstBytes: string, framing = `Content-Length: ${BODY}`) =>
      hold(`POST ${ingestPath} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${framing}`, firstBytes);
    /** A closed request's bytes are given back a moment after its socket closes: polled. */
    const untilFree = async (): Promise<void> => {
      for (let i = 0; i < 100; i += 1) {
        if (!await probe()) return;
        await sleep(20);
      }
      assert.fail('the bound was never free again');
    };

    it('a body that would pass the bound is 503 OVERLOADED with Retry-After: 1, in the envelope, and nothing is stored (ingest and REST)', async () => {
      const alerts = await alertCount();
      const integrations = await integrationCount();
      const held = await holdIngest('{"title":"held"');
      try {
        const refused = await ingest(alertOfSize('refused', BODY));
        assert.equal(refused.status, 503);
        assert.equal(refused.retryAfter, '1');
        assert.deepEqual(Object.keys(refused.body).sort(), ['code', 'details', 'error']);
        assert.equal(refused.body.code, 'OVERLOADED');
        assert.equal(refused.body.details, null);
        const rest = await send(port, 'POST', '/api/v1/integrations', JSON.stringify({ name: 'refused', pad: 'x'.repeat(BODY) }), { authorization: `Bearer ${h.org.key}` });
        assert.equal(rest.status, 503);
        assert.equal(rest.body.code, 'OVERLOADED');
        assert.equal(rest.retryAfter, '1');
        // A small body still fits beside the held one.
        assert.equal((await ingest(JSON.stringify({ title: 'small', severity: 'low' }))).status, 200);
      } finally {
        held.destroy();
      }
      assert.equal(await alertCount(), alerts + 1, 'only the small alert is stored');
      assert.equal(await integrationCount(), integrations);
    });

    it('an aborted request gives its bytes back: a later request is taken', async () => {
      (await holdIngest('{"title":"aborted"')).destroy();
      await untilFree();
      assert.equal((await ingest(alertOfSize('after abort', BODY))).status, 200);
    });

    it('a chunked body (no Content-Length) is counted as it arrives and refused once it would pass the bound', async () => {
      const held = await holdIngest(`${BODY.toString(16)}\r\n${'{'.padEnd(BODY, ' ')}\r\n`, 'Transfer-Encoding: chunked');
      try {
        const alerts = await alertCount();
        // http.request sends a body without Content-Length chunked.
        const chunked = await new Promise<Answer>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: ingestPath, headers: { 'content-type': 'application/json' } }, (res) => {
            let text = '';
            res.on('data', (c: Buffer) => { text += c.toString(); });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body: JSON.parse(text) }));
          });
          req.on('error', reject);
          const body = alertOfSize('chunked', BODY);
          req.write(body.slice(0, BODY / 2));
          req.end(body.slice(BODY / 2));
        });
        assert.equal(chunked.status, 503);
        assert.equal(chunked.body.code, 'OVERLOADED');
        assert.equal(chunked.retryAfter, '1');
        assert.equal(await alertCount(), alerts);
      } finally {
        held.destroy();
      }
      await untilFree();
    });

    it('bytes are given back after answered, refused and failed requests: the whole bound is free afterwards', async () => {
      for (let i = 0; i < 5; i += 1) {
        assert.equal((await ingest(alertOfSize(`taken ${i}`, BODY))).status, 200);
        assert.equal((await ingest('{'.padEnd(BODY, ' '))).status, 400, 'not JSON');
        assert.equal((await ingest(alertOfSize('too big', MiB + 1))).status, 413);
        assert.equal((await send(port, 'POST', '/api/inbound/webhook/wrong-token', alertOfSize('wrong', BODY))).status, 401);
        assert.equal((await send(port, 'PUT', '/api/v1/integrations/int_missing', JSON.stringify({ name: 'x', pad: 'x'.repeat(BODY) }), { authorization: `Bearer ${h.org.key}` })).status, 400);
      }
      // 1 MiB in flight would be refused if any of the above had kept even one byte.
      assert.equal((await ingest(alertOfSize('whole bound', MiB))).status, 200);
    });
  });
}
