import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One email as a real SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  headers: Record<string, string>;
  /** The decoded text/plain part. */
  text: string;
  /** The decoded text/html part ('' without one). */
  html: string;
}

/** Header lines unfolded, names lower-cased (the last of a repeated header wins). */
function parseHeaders(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of block.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return out;
}

const decodeQuotedPrintable = (s: string): string =>
  Buffer.from(s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');

function decodePart(headers: Record<string, string>, body: string): string {
  const enc = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  if (enc === 'quoted-printable') return decodeQuotedPrintable(body);
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

const split = (raw: string): [string, string] => {
  const i = raw.search(/\r?\n\r?\n/);
  return i < 0 ? [raw, ''] : [raw.slice(0, i), raw.slice(i).replace(/^\r?\n\r?\n/, '')];
};

/** The text/plain (or `wanted`) content of a (possibly multipart) message, decoded: enough MIME for our own emails. */
export function textOf(raw: string, wanted = 'text/plain'): string {
  const [head, body] = split(raw);
  const headers = parseHeaders(head);
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!type.toLowerCase().startsWith('multipart/') || !boundary) return wanted === 'text/plain' || type.toLowerCase().startsWith(wanted) ? decodePart(headers, body) : '';
  for (const rawPart of body.split(`--${boundary}`).slice(1)) {
    if (rawPart.startsWith('--')) break;
    const part = rawPart.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
    const partType = (parseHeaders(split(part)[0])['content-type'] ?? 'text/plain').toLowerCase();
    if (partType.startsWith(wanted) || partType.startsWith('multipart/')) {
      const found = textOf(part, wanted);
      if (found !== '') return found;
    }
  }
  return '';
}

export interface SmtpSink {
  url: string;
  port: number;
  mails: ReceivedMail[];
  /** Answers RCPT TO for an address with this error code (e.g. 550 permanent, 451 temporary). */
  rejectRecipient: Map<string, number>;
  close(): Promise<void>;
}

/** A real SMTP server (smtp-server) on 127.0.0.1, no TLS and no AUTH, keeping every message it accepts. */
export async function startSmtpSink(): Promise<SmtpSink> {
  const mails: ReceivedMail[] = [];
  const rejectRecipient = new Map<string, number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, cb) {
      const code = rejectRecipient.get(address.address);
      if (code) return cb(Object.assign(new Error(`Recipient ${address.address} refused`), { responseCode: code }));
      return cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          headers: parseHeaders(split(raw)[0]),
          text: textOf(raw),
          html: textOf(raw, 'text/html'),
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    mails,
    rejectRecipient,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface HttpHit {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpSink {
  /** `http://host:port` */
  base: string;
  hits: HttpHit[];
  /** The statuses to answer on a path, in order; the last repeats. Default 200; 0 never answers. */
  script: Map<string, number[]>;
  /** Milliseconds to wait before answering on a path. */
  delay: Map<string, number>;
  close(): Promise<void>;
}

/** A local HTTP server that records every request and answers as the test scripts it. */
export async function startHttpSink(host = '127.0.0.1'): Promise<HttpSink> {
  const hits: HttpHit[] = [];
  const script = new Map<string, number[]>();
  const delay = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      hits.push({ method: req.method ?? '', path, headers: req.headers, body: Buffer.concat(chunks) });
      const statuses = script.get(path) ?? [200];
      const status = statuses.length > 1 ? (statuses.shift() as number) : (statuses[0] as number);
      if (status === 0) return; // never answers
      setTimeout(() => {
        if (status >= 300 && status < 400) res.setHeader('Location', 'http://127.0.0.1:1/elsewhere');
        res.writeHead(status, { 'Content-Type': 'text/plain' });
        res.end(status >= 400 ? `nope ${status}` : 'ok');
      }, delay.get(path) ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://${host}:${port}`,
    hits,
    script,
    delay,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
