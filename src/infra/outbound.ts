import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import ipaddr from 'ipaddr.js';

/**
 * Outbound HTTP to addresses that users choose (webhook actions, contact methods, escalation channel
 * targets), guarded against server-side request forgery by one policy: only http/https, no credentials in
 * the URL, and never to loopback, private, link-local, CGNAT, unique-local, multicast, broadcast, unspecified
 * or reserved addresses (nor IPv4-mapped/NAT64/6to4 forms of them, nor any IPv4-compatible `::a.b.c.d`), nor
 * to `localhost` names, unless the operator's allow-list (`OUTBOUND_ALLOW`) permits them. `outboundUrlProblem`
 * applies it when a target is saved; sending applies it again (`checkOutboundUrl`), and the address check runs
 * inside the connection's own DNS lookup, so the address checked is the address connected to (no DNS
 * rebinding in between).
 */

type Addr = ipaddr.IPv4 | ipaddr.IPv6;

export interface AllowList {
  /** Ranges whose addresses may be reached although they are not public. */
  readonly cidrs: ReadonlyArray<readonly [Addr, number]>;
  /** Host names (lower-case, no trailing dot) that may be reached whatever they resolve to. */
  readonly hosts: ReadonlySet<string>;
}

export const EMPTY_ALLOW_LIST: AllowList = Object.freeze({ cidrs: [], hosts: new Set<string>() });

/** A host name or address as compared: no IPv6 brackets, no trailing dot, lower-case. */
const bare = (hostname: string): string => hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

/**
 * `OUTBOUND_ALLOW`: comma-separated CIDR ranges (`10.0.0.0/8`, `fd00::/8`), single addresses, or host
 * names. Throws an Error naming the bad entry.
 */
export function parseAllowList(raw: string | undefined): AllowList {
  const cidrs: Array<readonly [Addr, number]> = [];
  const hosts = new Set<string>();
  for (const part of (raw ?? '').split(',')) {
    const entry = bare(part.trim());
    if (entry === '') continue;
    if (entry.includes('/')) {
      try {
        cidrs.push(ipaddr.parseCIDR(entry));
      } catch {
        throw new Error(`"${entry}" is not a CIDR range`);
      }
    } else if (isIpLiteral(entry)) {
      const addr = ipaddr.parse(entry);
      cidrs.push([addr, addr.kind() === 'ipv4' ? 32 : 128]);
    } else if (HOST_NAME.test(entry)) {
      hosts.add(entry);
    } else {
      throw new Error(`"${entry}" is neither a CIDR range, an address nor a host name`);
    }
  }
  return Object.freeze({ cidrs: Object.freeze(cidrs), hosts });
}

/** Only the canonical forms count as addresses (`1.2.3` and `0x7f.1` are host names to us, as to node:net). */
const isIpLiteral = (s: string): boolean => ipaddr.IPv4.isValidFourPartDecimal(s) || (s.includes(':') && ipaddr.IPv6.isValid(s));

/**
 * An address as the network reads it. ipaddr.js takes the IPv6 text `::a.b.c.d` for the IPv4-mapped
 * `::ffff:a.b.c.d`, but it is the IPv4-compatible `::a.b.c.d` (what URLs and getaddrinfo mean by it), so IPv6
 * text holding a dotted quad is read through the WHATWG parser first (`::127.0.0.1` → `::7f00:1`).
 */
function parseAddress(address: string): Addr {
  if (address.includes(':') && address.includes('.')) {
    try {
      return ipaddr.parse(new URL(`http://[${address}]/`).hostname.slice(1, -1));
    } catch {
      // Not an address a URL can hold (a zone index): ipaddr.js reads it as it can.
    }
  }
  return ipaddr.parse(address);
}

/**
 * IPv4-compatible addresses (`::a.b.c.d`, ::/96 but `::` and `::1`): deprecated since RFC 4291 §2.5.5.1, and
 * some stacks still route them to the IPv4 address. No sender needs one, so every one is refused.
 */
function isIPv4Compatible(addr: ipaddr.IPv6): boolean {
  const b = addr.toByteArray();
  return b.slice(0, 12).every((x) => x === 0) && !(b.slice(12, 15).every((x) => x === 0) && (b[15] as number) <= 1);
}

/** The IPv4 address an IPv6 address stands for, when it embeds one (mapped, NAT64, 6to4). */
function embeddedIPv4(addr: ipaddr.IPv6): ipaddr.IPv4 | null {
  const range = addr.range();
  if (addr.isIPv4MappedAddress()) return addr.toIPv4Address();
  const b = addr.toByteArray();
  if (range === 'rfc6052') return new ipaddr.IPv4(b.slice(12, 16));
  if (range === '6to4') return new ipaddr.IPv4(b.slice(2, 6));
  return null;
}

/**
 * Why an address must not be reached (`loopback`, `private`, `linkLocal`, …), or null for a public
 * unicast address. IPv6 forms of IPv4 addresses are judged as the IPv4 address they reach.
 */
export function blockedRange(address: string): string | null {
  let addr: Addr;
  try {
    addr = parseAddress(address);
  } catch {
    return 'invalid';
  }
  if (addr.kind() === 'ipv6') {
    if (isIPv4Compatible(addr as ipaddr.IPv6)) return 'ipv4Compatible';
    const v4 = embeddedIPv4(addr as ipaddr.IPv6);
    if (v4) return blockedRange(v4.toString());
  }
  const range = addr.range();
  return range === 'unicast' ? null : range;
}

function inAllowedRange(address: string, allow: AllowList): boolean {
  let addr: Addr = parseAddress(address);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  return allow.cidrs.some(([net, bits]) => net.kind() === addr.kind() && addr.match(net, bits));
}

/** The range that forbids the address (`loopback`, …, `invalid`), or null when it may be connected to. */
function forbiddingRange(address: string, allow: AllowList): string | null {
  const range = blockedRange(address);
  if (range === null || range === 'invalid') return range;
  return inAllowedRange(address, allow) ? null : range;
}

/** Null when the address may be connected to, else why not (`127.0.0.2 is a loopback address`). */
export function refusalOf(address: string, allow: AllowList): string | null {
  const range = forbiddingRange(address, allow);
  if (range === null) return null;
  return range === 'invalid' ? `"${address}" is not an address` : `${address} is a ${range} address`;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Names that always mean this machine (RFC 6761 §6.3), whatever a resolver would answer: refused like the
 * loopback addresses they stand for, so only an allow-list that permits loopback (or the name) lets them by.
 */
const isRefusedLocalhost = (host: string, allow: AllowList): boolean =>
  (host === 'localhost' || host.endsWith('.localhost')) && refusalOf('127.0.0.1', allow) !== null && refusalOf('::1', allow) !== null;

/**
 * The outbound address policy, as far as it can be known without resolving the host: http/https, a host,
 * no credentials (`http://127.0.0.1%2f@example.com/` is a user name in front of example.com, and a URL is
 * shown in responses where a secret would leak), no `localhost` name, and, when the host is an address
 * literal in any spelling, an address that may be reached. Applied when a target is saved and again
 * before each send; the connection then checks every resolved address (`guardedLookup`).
 */
export function checkOutboundUrl(raw: string, allow: AllowList): UrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'is not valid' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'must use http or https' };
  const host = bare(url.hostname);
  if (host === '') return { ok: false, reason: 'has no host' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry credentials' };
  if (allow.hosts.has(host)) return { ok: true, url };
  if (isRefusedLocalhost(host, allow)) return { ok: false, reason: `is refused: ${host} is this machine` };
  // The WHATWG parser already turned `0x7f.1` or `2130706433` into dotted form.
  if (isIpLiteral(host)) {
    const refused = refusalOf(host, allow);
    if (refused) return { ok: false, reason: `is refused: ${refused}` };
  }
  return { ok: true, url };
}

/**
 * Why a URL a user gives as an outbound target must be refused when it is saved, or null: the message of a
 * 400 detail at the field's path (`is refused: 127.0.0.1 is a loopback address`). The one save-time check
 * for every target that holds a URL.
 */
export function outboundUrlProblem(raw: string, allow: AllowList): string | null {
  const checked = checkOutboundUrl(raw, allow);
  return checked.ok ? null : checked.reason;
}

/** A destination refused by the guard: permanent, never retried. */
export class OutboundRefusedError extends Error {
  readonly code = 'EOUTBOUND_REFUSED';
  override readonly name = 'OutboundRefusedError';
}

type Resolver = (hostname: string, options: LookupOptions & { all: true }, cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:net / node:http that resolves every address of the host and refuses the
 * connection when any of them may not be reached (an attacker's name may resolve to a public and a
 * private address). The connection then uses exactly the addresses checked here.
 */
export function guardedLookup(allow: AllowList, resolve: Resolver = dns.lookup as unknown as Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const host = bare(hostname);
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (!allow.hosts.has(host)) {
        for (const a of addresses) {
          const range = forbiddingRange(a.address, allow);
          if (range) return callback(new OutboundRefusedError(`${hostname} resolves to ${a.address}, a ${range} address`), []);
        }
      }
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

export interface OutboundResponse {
  status: number;
  /** The first bytes of the response body, as text (for a delivery log's error line). */
  excerpt: string;
}

const EXCERPT_BYTES = 512;

/**
 * POSTs `body` to `url` through the guard: refused destinations reject with OutboundRefusedError, network
 * errors and the timeout reject with the underlying error; any HTTP answer (redirects are not followed)
 * resolves with its status and the start of its body.
 */
export function guardedPost(url: URL, body: Buffer, headers: Record<string, string>, opts: { allow: AllowList; timeoutMs: number }): Promise<OutboundResponse> {
  const checked = checkOutboundUrl(url.href, opts.allow);
  if (!checked.ok) return Promise.reject(new OutboundRefusedError(`the URL ${checked.reason}`));
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(body.length) },
      lookup: guardedLookup(opts.allow) as never,
      agent: false,
      signal: AbortSignal.timeout(opts.timeoutMs),
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => resolve({ status: res.statusCode ?? 0, excerpt: Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8') });
      res.on('data', (chunk: Buffer) => {
        if (size >= EXCERPT_BYTES) return;
        chunks.push(chunk);
        size += chunk.length;
        // Enough read: the rest of the body is of no interest.
        if (size >= EXCERPT_BYTES) {
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', () => done());
      res.on('aborted', () => done());
    });
    req.on('error', reject);
    req.end(body);
  });
}
