import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { blockedRange, checkOutboundUrl, EMPTY_ALLOW_LIST, guardedLookup, guardedPost, outboundUrlProblem, OutboundRefusedError, parseAllowList, refusalOf } from '../../src/infra/outbound.ts';
import { loadConfig } from '../../src/config.ts';

describe('outbound address classification', () => {
  const table: Array<[string, string | null]> = [
    // IPv4
    ['8.8.8.8', null],
    ['1.1.1.1', null],
    ['172.32.0.1', null],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['192.0.2.1', 'reserved'],
    // IPv6
    ['2001:4860:4860::8888', null],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    // IPv6 forms of IPv4 addresses are judged as the address they reach
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:8.8.8.8', null],
    ['64:ff9b::a9fe:a9fe', 'linkLocal'],
    ['64:ff9b::808:808', null],
    ['2002:7f00:1::1', 'loopback'],
    // IPv4-compatible (`::a.b.c.d`, deprecated): some stacks route them to the IPv4 address; all refused
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::a9fe:a9fe', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::2', 'ipv4Compatible'],
    ['not-an-address', 'invalid'],
  ];
  for (const [address, expected] of table) {
    it(`${address} → ${expected ?? 'public'}`, () => assert.equal(blockedRange(address), expected));
  }

  it('the allow-list lets ranges, single addresses and mapped forms through', () => {
    const allow = parseAllowList('127.0.0.1/32, 10.1.0.0/16, fd00::/8, 192.168.5.5, hooks.internal.');
    assert.equal(refusalOf('127.0.0.1', allow), null);
    assert.equal(refusalOf('::ffff:127.0.0.1', allow), null, 'mapped form of an allowed address');
    assert.equal(refusalOf('127.0.0.2', allow), '127.0.0.2 is a loopback address');
    assert.equal(refusalOf('10.1.200.3', allow), null);
    assert.equal(refusalOf('10.2.0.1', allow), '10.2.0.1 is a private address');
    assert.equal(refusalOf('fd00::5', allow), null);
    assert.equal(refusalOf('192.168.5.5', allow), null);
    assert.equal(refusalOf('192.168.5.6', allow), '192.168.5.6 is a private address');
    assert.equal(refusalOf('169.254.169.254', allow), '169.254.169.254 is a linkLocal address');
    assert.deepEqual([...allow.hosts], ['hooks.internal']);
    assert.equal(refusalOf('127.0.0.1', EMPTY_ALLOW_LIST), '127.0.0.1 is a loopback address');
  });

  it('a bad allow-list entry is refused, naming it; OUTBOUND_ALLOW is validated at start', () => {
    assert.throws(() => parseAllowList('10.0.0.0/33'), /"10.0.0.0\/33" is not a CIDR range/);
    assert.throws(() => parseAllowList('ok.example, bad host'), /"bad host"/);
    assert.throws(() => loadConfig({ OUTBOUND_ALLOW: '300.1.1.1/8' }), /OUTBOUND_ALLOW/);
    assert.equal(loadConfig({}).outboundAllow.cidrs.length, 0, 'empty by default');
    assert.equal(loadConfig({ OUTBOUND_ALLOW: '127.0.0.1/32' }).outboundAllow.cidrs.length, 1);
    assert.equal(loadConfig({}).smtpFrom, 'AlertFlow <alertflow@localhost>');
    assert.equal(loadConfig({ SMTP_FROM: 'Ops <ops@example.com>' }).smtpFrom, 'Ops <ops@example.com>');
    assert.throws(() => loadConfig({ SMTP_FROM: 'nobody' }), /SMTP_FROM/);
  });
});

describe('checkOutboundUrl (syntax and address literals, no DNS)', () => {
  const none = EMPTY_ALLOW_LIST;
  const table: Array<[string, boolean, RegExp?]> = [
    ['https://hooks.example.com/alertflow', true],
    ['http://93.184.216.34:8080/x', true],
    ['http://[2001:4860:4860::8888]/', true],
    ['ftp://example.com/', false, /http or https/],
    ['file:///etc/passwd', false, /http or https/],
    ['javascript:alert(1)', false, /http or https/],
    ['not a url', false, /is not valid/],
    ['http://127.0.0.1:9000/', false, /loopback/],
    ['http://0x7f.1/', false, /loopback/],
    ['http://2130706433/', false, /loopback/],
    ['http://017700000001/', false, /loopback/],
    ['http://[::1]/', false, /loopback/],
    ['http://[::ffff:169.254.169.254]/latest/meta-data', false, /linkLocal/],
    ['http://169.254.169.254/latest/meta-data', false, /linkLocal/],
    ['http://10.0.0.8/', false, /private/],
    ['http://0.0.0.0/', false, /unspecified/],
    ['http://[fd00::1]/', false, /uniqueLocal/],
    ['http://[::127.0.0.1]/', false, /ipv4Compatible/],
    ['http://[::ffff:7f00:1]/', false, /loopback/],
    ['http://127.0.0.1%2f@example.com/', false, /credentials/],
    ['http://example.com@127.0.0.1/', false, /credentials/],
    ['http://127.0.0.1\\@example.com/', false, /loopback/],
    ['http://localhost:8080/', false, /localhost is this machine/],
    ['http://LOCALHOST./', false, /localhost is this machine/],
    ['http://api.localhost/', false, /api.localhost is this machine/],
  ];
  for (const [url, ok, reason] of table) {
    it(`${url} → ${ok ? 'ok' : 'refused'}`, () => {
      const r = checkOutboundUrl(url, none);
      assert.equal(r.ok, ok);
      if (!r.ok && reason) assert.match(r.reason, reason);
    });
  }

  it('an allow-listed range or host passes', () => {
    assert.equal(checkOutboundUrl('http://127.0.0.1:9000/', parseAllowList('127.0.0.1/32')).ok, true);
    assert.equal(checkOutboundUrl('http://[::ffff:127.0.0.1]:9000/', parseAllowList('127.0.0.1/32')).ok, true);
    assert.equal(checkOutboundUrl('http://10.0.0.8/', parseAllowList('hooks.internal')).ok, false);
    assert.equal(checkOutboundUrl('http://localhost:9000/', parseAllowList('localhost')).ok, true);
    assert.equal(checkOutboundUrl('http://localhost:9000/', parseAllowList('127.0.0.1/32')).ok, true, 'the name stands for the loopback addresses');
    assert.equal(checkOutboundUrl('http://[::127.0.0.1]/', parseAllowList('127.0.0.1/32')).ok, false, 'the compatible form is not the allowed address');
  });

  it('outboundUrlProblem is the same policy as a 400 detail message, null when the URL may be saved', () => {
    assert.equal(outboundUrlProblem('https://hooks.example.com/x', EMPTY_ALLOW_LIST), null);
    assert.equal(outboundUrlProblem('http://[::127.0.0.1]/', EMPTY_ALLOW_LIST), 'is refused: ::7f00:1 is a ipv4Compatible address');
    assert.equal(outboundUrlProblem('http://127.0.0.1%2f@example.com/', EMPTY_ALLOW_LIST), 'must not carry credentials');
  });
});

describe('guardedLookup (the check the connection itself makes)', () => {
  const resolver = (answers: Record<string, string[]>) =>
    (host: string, _opts: unknown, cb: (err: NodeJS.ErrnoException | null, addrs: LookupAddress[]) => void) =>
      cb(null, (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  const answers = { 'public.test': ['93.184.216.34'], 'rebind.test': ['93.184.216.34', '127.0.0.1'], 'v6.test': ['fe80::1'], 'none.test': [], 'internal.test': ['10.0.0.3'] };

  const run = (host: string, all: boolean, allow = EMPTY_ALLOW_LIST) => new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) => {
    guardedLookup(allow, resolver(answers) as never)(host, { all }, (err, address, family) => resolve({ err, address, ...(family !== undefined && { family }) }));
  });

  it('passes public addresses through, in both callback forms', async () => {
    assert.deepEqual(await run('public.test', false), { err: null, address: '93.184.216.34', family: 4 });
    assert.deepEqual((await run('public.test', true)).address, [{ address: '93.184.216.34', family: 4 }]);
  });

  it('refuses when any resolved address is not public', async () => {
    for (const host of ['rebind.test', 'v6.test', 'internal.test']) {
      const r = await run(host, true);
      assert.ok(r.err instanceof OutboundRefusedError, host);
      assert.match(r.err.message, new RegExp(`^${host.replace('.', '\\.')} resolves to [0-9a-f.:]+, a [A-Za-z]+ address$`));
    }
    assert.equal((await run('none.test', false)).err?.message, 'none.test has no address');
  });

  it('honours the allow-list: by range, and by host name whatever it resolves to', async () => {
    assert.equal((await run('internal.test', false, parseAllowList('10.0.0.0/8'))).err, null);
    assert.equal((await run('rebind.test', false, parseAllowList('rebind.test'))).err, null);
    assert.ok((await run('rebind.test', false, parseAllowList('10.0.0.0/8'))).err instanceof OutboundRefusedError);
  });
});

describe('guardedPost (a real connection)', () => {
  it('localhost is refused before any connection is made; an allow-list permitting loopback lets it through', async () => {
    let hits = 0;
    const server = http.createServer((req, res) => {
      hits += 1;
      req.resume();
      req.on('end', () => res.writeHead(201).end('created'.repeat(200)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = new URL(`http://localhost:${(server.address() as AddressInfo).port}/x`);
      const body = Buffer.from('{}');
      await assert.rejects(guardedPost(url, body, {}, { allow: EMPTY_ALLOW_LIST, timeoutMs: 2000 }), (err: unknown) =>
        err instanceof OutboundRefusedError && err.message === 'the URL is refused: localhost is this machine');
      assert.equal(hits, 0);
      const r = await guardedPost(url, body, { 'Content-Type': 'application/json' }, { allow: parseAllowList('127.0.0.1/32, ::1/128'), timeoutMs: 2000 });
      assert.equal(r.status, 201);
      assert.equal(r.excerpt.length, 512, 'only the start of the body is kept');
      assert.equal(hits, 1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
