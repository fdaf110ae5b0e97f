import http from 'node:http';
import { createStore } from '../../src/db/database.ts';
import type { StoreConfig } from '../../src/config.ts';
import { sleep } from '../support/process.ts';

/** What one sender got back for one request: a status, or a connection-level failure. */
type Outcome = { status: number; retryAfter: string | undefined; code: string | undefined } | { error: string };

/** One ingest request on a fresh connection (no keep-alive), so a request is in flight exactly while its socket is. */
function post(baseUrl: string, urlPath: string, payload: unknown): Promise<Outcome> {
  const body = JSON.stringify(payload);
  const url = new URL(urlPath, baseUrl);
  return new Promise((resolve) => {
    const req = http.request({
      host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false, timeout: 30_000,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => { text += d; }).on('end', () => {
        let code: string | undefined;
        try {
          code = (JSON.parse(text) as { code?: string }).code;
        } catch {
          code = undefined;
        }
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] as string | undefined, code });
      }).on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

/**
 * Ingest load from a few concurrent senders, each sending alerts with fingerprints of its own, one at a
 * time, and resending an alert (same fingerprint) until it is answered 2xx, as a sender behind a retrying
 * queue does: whatever was answered 2xx must be stored once, whatever happens to the service.
 */
export class IngestLoad {
  requests = 0;
  accepted = 0;
  unavailable = 0;
  /** 503 answers without Retry-After or not in the envelope: must stay 0. */
  badUnavailable = 0;
  /** Other non-2xx statuses, by status. */
  readonly otherStatus = new Map<number, number>();
  /** Connection-level failures, by error code. */
  readonly connectionErrors = new Map<string, number>();
  /** Fingerprints answered 2xx. */
  readonly acked = new Set<string>();
  /** When each 2xx answer came (ms since the epoch), for recovery times. */
  readonly okAt: number[] = [];
  #stopping = false;
  #loops: Array<Promise<void>> = [];
  #next = 0;

  readonly name: string;
  /** The base URLs of the instances up right now; requests go round-robin over them. */
  readonly targets: () => string[];
  readonly ingestPath: string;

  constructor(name: string, targets: () => string[], ingestPath: string) {
    this.name = name;
    this.targets = targets;
    this.ingestPath = ingestPath;
  }

  start(senders = 6): void {
    for (let s = 0; s < senders; s++) this.#loops.push(this.#sender(s));
  }

  async stop(): Promise<void> {
    this.#stopping = true;
    await Promise.all(this.#loops);
  }

  /** Milliseconds from `since` to the first 2xx answer after it (NaN if none came). */
  recoveryMs(since: number): number {
    const first = this.okAt.find((t) => t >= since);
    return first === undefined ? Number.NaN : first - since;
  }

  /** Resolves once `n` more alerts have been accepted (bounded). */
  async waitForAccepted(n: number, timeoutMs = 60_000): Promise<void> {
    const target = this.accepted + n;
    const until = Date.now() + timeoutMs;
    while (this.accepted < target) {
      if (Date.now() > until) throw new Error(`${this.name}: fewer than ${n} alerts accepted within ${timeoutMs} ms`);
      await sleep(20);
    }
  }

  async #sender(s: number): Promise<void> {
    for (let i = 0; !this.#stopping; i++) {
      const fingerprint = `${this.name}-${s}-${i}`;
      // An alert once sent is resent until accepted, even when stopping: the sender does not drop it.
      for (let attempt = 0; ; attempt++) {
        const targets = this.targets();
        const base = targets[this.#next++ % Math.max(1, targets.length)];
        if (base === undefined) {
          if (this.#stopping) break;
          await sleep(50);
          continue;
        }
        this.requests++;
        const r = await post(base, this.ingestPath, { title: `chaos ${fingerprint}`, severity: 'high', fingerprint });
        if ('status' in r && r.status >= 200 && r.status < 300) {
          this.accepted++;
          this.acked.add(fingerprint);
          this.okAt.push(Date.now());
          break;
        }
        if ('error' in r) this.connectionErrors.set(r.error, (this.connectionErrors.get(r.error) ?? 0) + 1);
        else if (r.status === 503) {
          this.unavailable++;
          if (!(Number(r.retryAfter) >= 1) || r.code !== 'SERVICE_UNAVAILABLE') this.badUnavailable++;
        } else this.otherStatus.set(r.status, (this.otherStatus.get(r.status) ?? 0) + 1);
        if (this.#stopping && attempt > 200) break;
        await sleep(50);
      }
    }
  }
}

/** What the store holds of a load's alerts: distinct fingerprints, and fingerprints with more than one open alert. */
export async function storedAlerts(config: StoreConfig, prefix: string): Promise<{ stored: Set<string>; duplicated: number }> {
  const store = await createStore(config);
  try {
    const rows = await store.db.selectFrom('alerts').select(['fingerprint', 'status'])
      .where('fingerprint', 'like', `${prefix}-%`).execute();
    const open = new Map<string, number>();
    for (const r of rows) if (r.status !== 'resolved') open.set(r.fingerprint, (open.get(r.fingerprint) ?? 0) + 1);
    return { stored: new Set(rows.map((r) => r.fingerprint)), duplicated: [...open.values()].filter((n) => n > 1).length };
  } finally {
    await store.close();
  }
}
