/**
 * AlertFlow benchmark: `npm run bench [-- --store sqlite|postgres] [--duration N] [--connections N]`.
 *
 * For each store it starts a fresh server (`node src/cli/main.ts serve`) as a child process on 127.0.0.1
 * with a fresh store (SQLite in a temp dir; PostgreSQL in a new database that is dropped afterwards),
 * creates an organization with the CLI and an integration through the API, then drives it with autocannon:
 *   new   — ingest, every request a new fingerprint (a new alert each)
 *   dup   — ingest, the same fingerprint every time (deduplicated)
 *   mapped — ingest through the `alertmanager` preset: Alertmanager's webhook body with 10 new alerts per request
 *   list  — GET /api/v1/alerts (first page, limit 25) with ≥ 100,000 alerts in the organization
 *   list10 — the same with 10 connections
 *   list1 — the same with one connection: the service time of one request without queueing
 * It prints a markdown table and, for a full run, rewrites its sections of docs/benchmarks.md.
 *
 * Other flags: --scenarios new,dup,mapped,list,list10,list1  --seed 100000  --cpu-prof DIR (profile the server; the
 * .cpuprofile is written when it shuts down; summarize it with `node bench/profile-summary.ts DIR`)
 * --write-docs (also for a quick run)  --no-docs (never).
 */
import autocannon, { type RequestSpec, type Result } from 'autocannon';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import type { StoreConfig } from '../src/config.ts';
import { createStore } from '../src/db/database.ts';
import type { DB } from '../src/db/schema.ts';
import { newId } from '../src/lib/ids.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DOC = path.join(ROOT, 'docs', 'benchmarks.md');
const HOST = '127.0.0.1';
/** The largest value src/config.ts accepts for the rate limits (it rejects anything above 10,000,000). */
const NO_LIMIT = '10000000';
const PG_BASE = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const FULL_DURATION = 15;
const WARMUP_SECONDS = 2;
const execFileP = promisify(execFile);
/** The Node flags `npm start` gives the server (package.json is their one source), so the bench measures what users run. */
const SERVER_NODE_FLAGS: string[] = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } })
  .scripts.start.split(/\s+/).filter((t) => t.startsWith('--'));

type StoreKind = 'sqlite' | 'postgres';
type ScenarioName = 'new' | 'dup' | 'mapped' | 'list' | 'list10' | 'list1';
const ALL_SCENARIOS: readonly ScenarioName[] = ['new', 'dup', 'mapped', 'list', 'list10', 'list1'];
/** Alerts in each request of the `mapped` scenario. */
const ALERTS_PER_MAPPED_REQUEST = 10;

// ---------------------------------------------------------------------------------------------------------
// Options

interface Options {
  stores: StoreKind[];
  duration: number;
  connections: number;
  seed: number;
  scenarios: ScenarioName[];
  cpuProfDir: string | undefined;
  /** Extra node flags for the server (experiments such as --max-semi-space-size=8). */
  nodeOptions: string[];
  writeDocs: boolean;
}

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nUsage: npm run bench -- [--store sqlite|postgres] [--duration N] [--connections N] [--seed N] [--scenarios new,dup,mapped,list,list10,list1] [--cpu-prof DIR] [--node-option FLAG]... [--write-docs|--no-docs]\n`);
  process.exit(2);
}

function positiveInt(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) usage(`--${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

function readOptions(argv: string[]): Options {
  let values;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        store: { type: 'string' },
        duration: { type: 'string' },
        connections: { type: 'string' },
        seed: { type: 'string' },
        scenarios: { type: 'string' },
        'cpu-prof': { type: 'string' },
        'node-option': { type: 'string', multiple: true },
        'write-docs': { type: 'boolean' },
        'no-docs': { type: 'boolean' },
      },
    }).values;
  } catch (err) {
    usage((err as Error).message);
  }
  const store = values.store ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(store)) usage(`--store must be sqlite, postgres or both, got "${store}"`);
  const scenarios = (values.scenarios ?? ALL_SCENARIOS.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of scenarios) if (!ALL_SCENARIOS.includes(s as ScenarioName)) usage(`unknown scenario "${s}"`);
  const duration = positiveInt(values.duration, 'duration', FULL_DURATION);
  const nodeOptions = values['node-option'] ?? [];
  const full = duration >= FULL_DURATION && scenarios.length === ALL_SCENARIOS.length && values['cpu-prof'] === undefined && nodeOptions.length === 0;
  return {
    stores: store === 'both' ? ['sqlite', 'postgres'] : [store as StoreKind],
    duration,
    connections: positiveInt(values.connections, 'connections', 50),
    seed: positiveInt(values.seed, 'seed', 100_000),
    scenarios: scenarios as ScenarioName[],
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : path.resolve(values['cpu-prof']),
    nodeOptions,
    writeDocs: values['no-docs'] === true ? false : values['write-docs'] === true || full,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Cleanup: every resource the benchmark creates registers how to release it; released in reverse order on
// success, failure and Ctrl-C alike. Only the processes this script started are signalled, by their PID.

const releases: Array<{ name: string; fn: () => Promise<void> }> = [];
const liveChildren = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let currentRun: ReturnType<typeof autocannon> | undefined;
let interrupted = false;

function hold(name: string, fn: () => Promise<void>): () => Promise<void> {
  const entry = { name, fn };
  releases.push(entry);
  let done = false;
  return async () => {
    if (done) return;
    done = true;
    const i = releases.indexOf(entry);
    if (i >= 0) releases.splice(i, 1);
    await fn();
  };
}

async function releaseAll(): Promise<void> {
  while (releases.length > 0) {
    const entry = releases.pop() as (typeof releases)[number];
    try {
      await entry.fn();
    } catch (err) {
      process.stderr.write(`bench: cleanup "${entry.name}" failed: ${(err as Error).message}\n`);
    }
  }
}

function onSignal(signal: NodeJS.Signals): void {
  if (interrupted) return;
  interrupted = true;
  process.stderr.write(`\nbench: ${signal}, cleaning up…\n`);
  currentRun?.stop();
  void releaseAll().finally(() => process.exit(130));
}
process.on('SIGINT', onSignal);
process.on('SIGTERM', onSignal);
// Last resort if the process exits without the async cleanup having run.
process.on('exit', () => {
  for (const child of liveChildren) if (child.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Machine and process measurements

interface Machine {
  revision: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  sqlite: string;
  postgres: string;
  kernel: string;
}

async function machine(): Promise<Machine> {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown';
  const db = new DatabaseSync(':memory:');
  const sqlite = String((db.prepare('select sqlite_version() as v').get() as { v: unknown }).v);
  db.close();
  let postgres = 'not reachable';
  try {
    postgres = String((await adminQuery('show server_version')).rows[0]?.server_version ?? 'unknown');
  } catch {
    // left as "not reachable"
  }
  return {
    revision: await revision(),
    cpus: os.availableParallelism(),
    cpuModel: model,
    memoryGiB: os.totalmem() / 2 ** 30,
    node: process.version,
    sqlite,
    postgres,
    kernel: `${os.type()} ${os.release()}`,
  };
}

/** The commit measured, and whether the server's code differed from it (others may be editing the tree). */
async function revision(): Promise<string> {
  if (process.env.BENCH_REVISION) return process.env.BENCH_REVISION;
  try {
    const head = (await execFileP('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'])).stdout.trim();
    const dirty = (await execFileP('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src', 'package.json', 'package-lock.json'])).stdout.trim();
    return dirty ? `${head} with uncommitted changes under src/ or package files` : `${head} (clean)`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples the server's resident set size every 250 ms; returns the peak in MiB. */
function rssSampler(pid: number): { stop: () => number } {
  let peak = 0;
  const read = () => {
    const v = procStatus(pid, 'VmRSS');
    if (v !== undefined && v > peak) peak = v;
  };
  read();
  const timer = setInterval(read, 250);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return peak;
    },
  };
}

/** CPU time (clock ticks) of a process, and of the whole machine, to tell who used the cores during a run. */
function procTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
/** CPU ticks of each PostgreSQL server process on this machine, by PID (its backends do the store's work). */
function postgresTicks(): Map<number, number> {
  const out = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(entry), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * PostgreSQL CPU used since it was created. Backends come and go (the pool closes idle clients), so every
 * 500 ms it notes each backend's ticks: one that exits keeps what was last seen of it.
 */
function postgresMeter(): { sample: () => void; ticks: () => number } {
  const first = postgresTicks();
  const last = new Map(first);
  const sample = () => {
    for (const [pid, t] of postgresTicks()) last.set(pid, t);
  };
  return {
    sample,
    ticks: () => {
      sample();
      let sum = 0;
      for (const [pid, t] of last) sum += t - (first.get(pid) ?? 0);
      return Math.max(0, sum);
    },
  };
}

function machineTicks(): { procs: number; irq: number; steal: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.split(/\s+/).slice(1).map(Number);
  return { procs: user + nice + system, irq: irq + softirq, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
}
interface CpuUse {
  /** Cores (1.0 = one core busy for the whole run). */
  server: number;
  client: number;
  /** PostgreSQL's processes (a backend that exits counts up to its last 500 ms sample). */
  postgres: number;
  /** Every other process and kernel thread: other work on the machine. */
  other: number;
  /** Interrupt handling (loopback networking) and time stolen by the hypervisor. */
  irq: number;
  steal: number;
}
function cpuMeter(serverPid: number): { stop: () => CpuUse } {
  const cpus = os.availableParallelism();
  const m0 = machineTicks();
  const s0 = procTicks(serverPid);
  const c0 = procTicks(process.pid);
  const pgMeter = postgresMeter();
  const timer = setInterval(pgMeter.sample, 500);
  return {
    stop: () => {
      clearInterval(timer);
      const m1 = machineTicks();
      const perCore = (m1.total - m0.total) / cpus;
      if (perCore <= 0) return { server: 0, client: 0, postgres: 0, other: 0, irq: 0, steal: 0 };
      const server = (procTicks(serverPid) - s0) / perCore;
      const client = (procTicks(process.pid) - c0) / perCore;
      const postgres = pgMeter.ticks() / perCore;
      const procs = (m1.procs - m0.procs) / perCore;
      return {
        server,
        client,
        postgres,
        other: Math.max(0, procs - server - client - postgres),
        irq: (m1.irq - m0.irq) / perCore,
        steal: (m1.steal - m0.steal) / perCore,
      };
    },
  };
}

/**
 * Other work on this machine (tests, builds) skews every figure. Before each run, wait until the rest of the
 * machine has used under 0.2 cores for 2 s, for at most BENCH_QUIET_WAIT seconds (default 180); the
 * "other" CPU column shows what still ran during the measurement.
 */
async function waitForQuiet(serverPid: number): Promise<number> {
  const limit = Number(process.env.BENCH_QUIET_WAIT ?? 180) * 1000;
  const start = performance.now();
  for (;;) {
    const meter = cpuMeter(serverPid);
    await new Promise((r) => setTimeout(r, 2000));
    const use = meter.stop();
    const waited = (performance.now() - start) / 1000;
    if (use.other < 0.2) return waited;
    if (interrupted || performance.now() - start > limit) {
      log(`machine still busy (${use.other.toFixed(2)} cores used by other processes); measuring anyway`);
      return waited;
    }
    log(`waiting for a quiet machine (${use.other.toFixed(2)} cores used by other processes)…`);
  }
}

// ---------------------------------------------------------------------------------------------------------
// PostgreSQL administration (loopback only)

function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) throw new Error(`BENCH_PG_URL must point at loopback, got ${host}`);
}

async function adminQuery(text: string): Promise<pg.QueryResult> {
  assertLoopback(PG_BASE);
  const client = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The server under test

interface Server {
  child: ChildProcess;
  pid: number;
  port: number;
  /** The last lines it printed, for error messages. */
  tail: string[];
  /** Drops the cleanup registration (stopping it first if it still runs). */
  release: () => Promise<void>;
}

function childEnv(databaseUrl: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Nothing from the caller's environment may point the server elsewhere (another store, a shared Redis).
  for (const k of Object.keys(env)) if (k.startsWith('RATE_LIMIT_') || k.startsWith('INGEST_')) delete env[k];
  delete env.REDIS_URL;
  delete env.ALERTFLOW_DATA_DIR;
  delete env.BASE_URL;
  return {
    ...env,
    DATABASE_URL: databaseUrl,
    HOST,
    PORT: '0',
    LOG_LEVEL: 'info',
    RATE_LIMIT_API_PER_MINUTE: NO_LIMIT,
    RATE_LIMIT_INGEST_PER_MINUTE: NO_LIMIT,
  };
}

async function startServer(env: NodeJS.ProcessEnv, nodeFlags: string[]): Promise<Server> {
  const child = spawn(process.execPath, [...nodeFlags, 'src/cli/main.ts', 'serve'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
  };
  const stopOnRelease = hold(`server ${child.pid}`, async () => {
    await stopServer(child);
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not report "AlertFlow listening" within 60 s:\n${tail.join('\n')}`)), 60_000);
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
        remember(line);
        try {
          const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
          if (entry.msg === 'AlertFlow listening' && typeof entry.port === 'number') {
            clearTimeout(timer);
            resolve(entry.port);
          }
        } catch {
          // not a JSON log line
        }
      });
      createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', remember);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`server exited (${code ?? signal}) before listening:\n${tail.join('\n')}`));
      });
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
    });
    return { child, pid: child.pid as number, port, tail, release: stopOnRelease };
  } catch (err) {
    await stopOnRelease();
    throw err;
  }
}

/** SIGTERM (graceful: finish in-flight requests, close the store), SIGKILL after 20 s. Resolves with how it ended. */
async function stopServer(child: ChildProcess): Promise<string> {
  if (child.exitCode !== null || child.signalCode !== null) return `already exited (${child.exitCode ?? child.signalCode})`;
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(code !== null ? `exit ${code}` : `signal ${signal}`)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------------------
// API helpers (plain fetch against 127.0.0.1)

async function api<T>(server: Server, method: string, url: string, apiKey: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://${HOST}:${server.port}${url}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

async function alertTotal(server: Server, apiKey: string): Promise<number> {
  const page = await api<{ meta: { total?: number } }>(server, 'GET', '/api/v1/alerts?limit=1', apiKey);
  if (typeof page.meta.total !== 'number') throw new Error('GET /api/v1/alerts returned no meta.total on the first page');
  return page.meta.total;
}

/** Tops the organization up to `target` alerts with direct multi-row inserts through the store (not timed). */
async function seedAlerts(storeConfig: StoreConfig, orgId: string, integrationId: string, count: number): Promise<void> {
  if (count <= 0) return;
  const store = await createStore(storeConfig);
  try {
    const tag = randomBytes(4).toString('hex');
    // Older than everything ingested so far, one millisecond apart.
    const t0 = Date.now() - 86_400_000 - count;
    const severities = ['critical', 'high', 'medium', 'low', 'info'];
    const row = (i: number): DB['alerts'] => {
      const at = t0 + i;
      const labels = JSON.stringify({ host: `web-${i % 50}`, env: 'bench' });
      return {
        id: newId('alt'), org_id: orgId, integration_id: integrationId, client_id: null, incident_id: null,
        fingerprint: `seed-${tag}-${i}`, title: `Seeded alert ${i}`, severity: severities[i % 5] as string, status: 'firing',
        source: 'bench', description: null, labels, annotations: '{}',
        payload: JSON.stringify({ title: `Seeded alert ${i}`, severity: severities[i % 5], fingerprint: `seed-${tag}-${i}` }),
        occurrences: 1, last_seen_at: at, acknowledged_at: null, acknowledged_by_type: null, acknowledged_by_id: null,
        resolved_at: null, resolved_by_type: null, resolved_by_id: null, suppression_id: null, created_at: at, updated_at: at,
      };
    };
    const perStatement = 500; // 24 columns × 500 rows stays under both dialects' bound-parameter limits
    const perTransaction = 20_000;
    for (let done = 0; done < count;) {
      await store.db.transaction().execute(async (trx) => {
        const end = Math.min(count, done + perTransaction);
        while (done < end) {
          const n = Math.min(perStatement, end - done);
          const first = done;
          await trx.insertInto('alerts').values(Array.from({ length: n }, (_, k) => row(first + k))).execute();
          done += n;
        }
      });
    }
  } finally {
    await store.close();
  }
}

// ---------------------------------------------------------------------------------------------------------
// Scenarios

interface Measurement {
  scenario: ScenarioName;
  label: string;
  connections: number;
  duration: number;
  reqPerSec: number;
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  rssPeakMiB: number;
  cpu: CpuUse;
  load1: number;
  note: string;
  /** Alerts per second, where a request carries several. */
  alertsPerSec?: number;
}

const LABELS: Record<ScenarioName, string> = {
  new: 'ingest, new alert per request',
  dup: 'ingest, duplicate (same fingerprint)',
  mapped: `ingest via alertmanager preset, ${ALERTS_PER_MAPPED_REQUEST} new alerts per request`,
  list: 'GET /api/v1/alerts first page',
  list10: 'GET /api/v1/alerts first page, 10 connections',
  list1: 'GET /api/v1/alerts first page, 1 connection',
};

interface Sample {
  result: Result;
  rss: number;
  cpu: CpuUse;
  load1: number;
}

async function load(server: Server, connections: number, duration: number, requests: RequestSpec[]): Promise<Sample> {
  await waitForQuiet(server.pid);
  const load1 = os.loadavg()[0] ?? 0;
  const rss = rssSampler(server.pid);
  const cpu = cpuMeter(server.pid);
  const run = autocannon({ url: `http://${HOST}:${server.port}`, connections, duration, requests, timeout: 30 });
  currentRun = run;
  try {
    const result = await run;
    return { result, rss: rss.stop(), cpu: cpu.stop(), load1 };
  } finally {
    currentRun = undefined;
    rss.stop();
    cpu.stop();
  }
}

function toMeasurement(scenario: ScenarioName, connections: number, duration: number, r: Sample, note = ''): Measurement {
  return {
    scenario,
    label: LABELS[scenario],
    connections,
    duration,
    reqPerSec: r.result.requests.average,
    p50: r.result.latency.p50,
    p99: r.result.latency.p99,
    ok: r.result['2xx'],
    non2xx: r.result.non2xx,
    errors: r.result.errors,
    timeouts: r.result.timeouts,
    rssPeakMiB: r.rss,
    cpu: r.cpu,
    load1: r.load1,
    note,
  };
}

function ingestRequests(token: string, fingerprint: () => string): RequestSpec[] {
  const headers = { 'content-type': 'application/json' };
  const path = `/api/inbound/webhook/${token}`;
  return [{
    method: 'POST',
    path,
    headers,
    setupRequest: (req) => {
      const fp = fingerprint();
      req.body = JSON.stringify({
        title: `Bench alert ${fp}`,
        severity: 'high',
        source: 'bench',
        fingerprint: fp,
        description: 'Synthetic alert sent by npm run bench',
        labels: { host: 'web-1', env: 'bench', service: 'checkout' },
      });
      return req;
    },
  }];
}

/** Alertmanager's webhook body (version 4) with fresh fingerprints: what the `alertmanager` preset maps. */
function alertmanagerRequests(token: string, fingerprint: () => string): RequestSpec[] {
  return [{
    method: 'POST',
    path: `/api/inbound/webhook/${token}`,
    headers: { 'content-type': 'application/json' },
    setupRequest: (req) => {
      const alerts = Array.from({ length: ALERTS_PER_MAPPED_REQUEST }, (_, i) => ({
        status: 'firing',
        labels: { alertname: 'HighLatency', instance: `web-${i}:9100`, job: 'checkout', severity: i % 2 === 0 ? 'critical' : 'warning' },
        annotations: { summary: `p99 latency above 500 ms on web-${i}`, description: 'Synthetic alert sent by npm run bench', runbook_url: 'https://runbooks.example.com/latency' },
        startsAt: '2026-11-21T09:58:00.000Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: 'http://prometheus.example.com:9090/graph',
        fingerprint: fingerprint(),
      }));
      req.body = JSON.stringify({
        version: '4', groupKey: '{}:{alertname="HighLatency"}', truncatedAlerts: 0, status: 'firing', receiver: 'alertflow',
        groupLabels: { alertname: 'HighLatency' }, commonLabels: { alertname: 'HighLatency', job: 'checkout' }, commonAnnotations: {},
        externalURL: 'http://alertmanager.example.com:9093', alerts,
      });
      return req;
    },
  }];
}

interface StoreRun {
  kind: StoreKind;
  machine: Machine;
  measurements: Measurement[];
  alertsInOrg: number | undefined;
  startedAt: string;
  shutdown: string;
  notes: string[];
}

function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

async function benchStore(kind: StoreKind, opts: Options, info: Machine): Promise<StoreRun> {
  const startedAt = new Date().toISOString();
  const notes: string[] = [];
  let databaseUrl: string;
  let storeConfig: StoreConfig;
  let releaseStore: () => Promise<void>;

  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-bench-'));
    tempDirs.add(dir);
    releaseStore = hold(`temp dir ${dir}`, async () => {
      rmSync(dir, { recursive: true, force: true });
      tempDirs.delete(dir);
    });
    const file = path.join(dir, 'alertflow.db');
    databaseUrl = `sqlite://${file}`;
    storeConfig = { kind: 'sqlite', file };
  } else {
    const name = `alertflow_bench_${randomBytes(6).toString('hex')}`;
    await adminQuery(`create database "${name}"`);
    releaseStore = hold(`database ${name}`, async () => {
      await adminQuery(`drop database if exists "${name}" with (force)`);
    });
    databaseUrl = `${PG_BASE}/${name}`;
    storeConfig = { kind: 'postgres', url: databaseUrl };
  }
  log(`${kind}: store ${databaseUrl}`);

  const env = childEnv(databaseUrl);
  const measurements: Measurement[] = [];
  let alertsInOrg: number | undefined;
  let shutdown = 'not started';
  try {
    const created = await execFileP(process.execPath, ['src/cli/main.ts', 'org', 'create', '--name', 'Bench', '--json'], { cwd: ROOT, env });
    const org = JSON.parse(created.stdout.trim().split('\n').pop() as string) as { org: { id: string }; apiKey: string };
    const apiKey = org.apiKey;

    const nodeFlags = [...SERVER_NODE_FLAGS, ...opts.nodeOptions, ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [])];
    const server = await startServer(env, nodeFlags);
    log(`${kind}: server pid ${server.pid} listening on ${HOST}:${server.port}`);
    try {
      const integration = await api<{ data: { id: string; token: string } }>(server, 'POST', '/api/v1/integrations', apiKey, { name: 'Bench' });
      const { token, id: integrationId } = integration.data;
      const runId = randomBytes(4).toString('hex');
      let counter = 0;
      const fresh = () => `bench-${runId}-${counter++}`;
      const want = (s: ScenarioName) => opts.scenarios.includes(s);
      const c = opts.connections;
      const d = opts.duration;
      let ingested = 0;

      if (want('new') && !interrupted) {
        log(`${kind}: warm-up ${WARMUP_SECONDS} s`);
        const warm = await load(server, c, WARMUP_SECONDS, ingestRequests(token, fresh));
        ingested += warm.result['2xx'];
        let sent = warm.result.requests.sent;
        log(`${kind}: new alerts, ${c} connections, ${d} s`);
        const r = await load(server, c, d, ingestRequests(token, fresh));
        ingested += r.result['2xx'];
        // Every 200 must be a stored alert: the organization holds exactly as many alerts as 2xx answers.
        sent += r.result.requests.sent;
        const total = await alertTotal(server, apiKey);
        // Requests still in flight when autocannon stops are stored but never counted as answered.
        const ok = total >= ingested && total <= sent;
        const note = `${total} alerts stored for ${ingested} 2xx answers and ${sent} requests sent (warm-up included)${ok ? '' : ' — MISMATCH'}`;
        if (!ok) notes.push(`new-alert run: ${note}`);
        measurements.push(toMeasurement('new', c, d, r, note));
      }

      if (want('dup') && !interrupted) {
        const fp = `bench-dup-${runId}`;
        log(`${kind}: duplicates, ${c} connections, ${d} s`);
        const r = await load(server, c, d, ingestRequests(token, () => fp));
        const row = await api<{ data: Array<{ occurrences: number }> }>(server, 'GET', `/api/v1/alerts?fingerprint=${fp}`, apiKey);
        const occurrences = row.data[0]?.occurrences ?? 0;
        const ok = occurrences >= r.result['2xx'] && occurrences <= r.result.requests.sent;
        const note = `the alert counts ${occurrences} occurrences for ${r.result['2xx']} 2xx answers and ${r.result.requests.sent} requests sent${ok ? '' : ' — MISMATCH'}`;
        if (!ok) notes.push(`duplicate run: ${note}`);
        measurements.push(toMeasurement('dup', c, d, r, note));
      }

      if (want('mapped') && !interrupted) {
        const am = await api<{ data: { token: string } }>(server, 'POST', '/api/v1/integrations', apiKey, { name: 'Bench Alertmanager', preset: 'alertmanager' });
        const before = await alertTotal(server, apiKey);
        log(`${kind}: warm-up ${WARMUP_SECONDS} s`);
        const warm = await load(server, c, WARMUP_SECONDS, alertmanagerRequests(am.data.token, fresh));
        log(`${kind}: Alertmanager payloads, ${ALERTS_PER_MAPPED_REQUEST} alerts each, ${c} connections, ${d} s`);
        const r = await load(server, c, d, alertmanagerRequests(am.data.token, fresh));
        const stored = (await alertTotal(server, apiKey)) - before;
        const answered = (warm.result['2xx'] + r.result['2xx']) * ALERTS_PER_MAPPED_REQUEST;
        const sent = (warm.result.requests.sent + r.result.requests.sent) * ALERTS_PER_MAPPED_REQUEST;
        // All or nothing per request: the stored count is a whole number of payloads between answered and sent.
        const ok = stored >= answered && stored <= sent && stored % ALERTS_PER_MAPPED_REQUEST === 0;
        const perSecond = r.result.requests.average * ALERTS_PER_MAPPED_REQUEST;
        const note = `${fmt(perSecond)} alerts/s; ${stored} alerts stored for ${answered} alerts in 2xx answers and ${sent} sent (warm-up included)${ok ? '' : ' — MISMATCH'}`;
        if (!ok) notes.push(`mapped run: ${note}`);
        measurements.push({ ...toMeasurement('mapped', c, d, r, note), alertsPerSec: perSecond });
      }

      const listRuns = ([['list', c], ['list10', 10], ['list1', 1]] as const).filter(([name]) => want(name));
      if (listRuns.length > 0 && !interrupted) {
        const before = await alertTotal(server, apiKey);
        if (before < opts.seed) {
          log(`${kind}: seeding ${opts.seed - before} alerts through the store (not timed)`);
          const t = performance.now();
          await seedAlerts(storeConfig, org.org.id, integrationId, opts.seed - before);
          log(`${kind}: seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
        }
        alertsInOrg = await alertTotal(server, apiKey);
        if (alertsInOrg < opts.seed) throw new Error(`only ${alertsInOrg} alerts after seeding, need ${opts.seed}`);
        const list: RequestSpec[] = [{ method: 'GET', path: '/api/v1/alerts', headers: { authorization: `Bearer ${apiKey}` } }];
        log(`${kind}: warm-up ${WARMUP_SECONDS} s`);
        await load(server, c, WARMUP_SECONDS, list);
        for (const [name, conns] of listRuns) {
          if (interrupted) break;
          log(`${kind}: GET /api/v1/alerts with ${alertsInOrg} alerts, ${conns} connection(s), ${d} s`);
          measurements.push(toMeasurement(name, conns, d, await load(server, conns, d, list), `${alertsInOrg} alerts in the org`));
        }
      }
      const hwm = procStatus(server.pid, 'VmHWM');
      if (hwm !== undefined) notes.push(`server peak RSS over its whole life (VmHWM): ${hwm.toFixed(0)} MiB`);
    } finally {
      shutdown = await stopServer(server.child);
      await server.release();
      if (shutdown !== 'exit 0') notes.push(`server shutdown on SIGTERM: ${shutdown} (expected exit 0)`);
      if (server.tail.some((l) => /"level":(40|50|60)/.test(l))) notes.push(`server logged warnings/errors; last lines:\n${server.tail.join('\n')}`);
    }
  } finally {
    await releaseStore();
  }
  return { kind, machine: info, measurements, alertsInOrg, startedAt, shutdown, notes };
}

// ---------------------------------------------------------------------------------------------------------
// Report

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function table(run: StoreRun): string {
  const lines = [
    '| scenario | conns | req/s (avg) | p50 ms | p99 ms | non-2xx | errors | 2xx total | server peak RSS MiB | CPU cores: server / client / PostgreSQL / other / irq+steal | load1 at start |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const m of run.measurements) {
    lines.push(`| ${m.label} | ${m.connections} | ${fmt(m.reqPerSec)} | ${fmt(m.p50, 1)} | ${fmt(m.p99, 1)} | ${m.non2xx} | ${m.errors + m.timeouts} | ${fmt(m.ok)} | ${fmt(m.rssPeakMiB)} | ${m.cpu.server.toFixed(2)} / ${m.cpu.client.toFixed(2)} / ${m.cpu.postgres.toFixed(2)} / ${m.cpu.other.toFixed(2)} / ${(m.cpu.irq + m.cpu.steal).toFixed(2)} | ${m.load1.toFixed(2)} |`);
  }
  return lines.join('\n');
}

interface Verdict {
  target: string;
  measured: string;
  met: boolean;
}

function verdicts(run: StoreRun): Verdict[] {
  const by = (s: ScenarioName) => run.measurements.find((m) => m.scenario === s);
  const out: Verdict[] = [];
  const newTarget = run.kind === 'sqlite' ? 5_000 : 2_000;
  const dupTarget = run.kind === 'sqlite' ? 6_000 : 2_000;
  const n = by('new');
  if (n) out.push({ target: `new alerts ≥ ${fmt(newTarget)}/s`, measured: `${fmt(n.reqPerSec)}/s`, met: n.reqPerSec >= newTarget });
  const mapped = by('mapped');
  if (mapped?.alertsPerSec !== undefined && run.kind === 'sqlite') {
    out.push({ target: 'alerts through a mapping ≥ 10,000/s', measured: `${fmt(mapped.alertsPerSec)}/s`, met: mapped.alertsPerSec >= 10_000 });
  }
  const d = by('dup');
  if (d) out.push({ target: `duplicates ≥ ${fmt(dupTarget)}/s`, measured: `${fmt(d.reqPerSec)}/s`, met: d.reqPerSec >= dupTarget });
  for (const l of [by('list'), by('list10'), by('list1')]) {
    if (l) out.push({ target: `GET /alerts p99 ≤ 20 ms at ≥ 100,000 alerts (${l.connections} connection${l.connections === 1 ? '' : 's'})`, measured: `${fmt(l.p99, 1)} ms`, met: l.p99 <= 20 });
  }
  if (run.measurements.length > 0) {
    const rss = Math.max(...run.measurements.map((m) => m.rssPeakMiB));
    out.push({ target: 'server RSS ≤ 200 MB (taken as 200 MiB)', measured: `${fmt(rss)} MiB peak`, met: rss <= 200 });
    const bad = run.measurements.reduce((s, m) => s + m.non2xx + m.errors + m.timeouts, 0);
    out.push({ target: 'no non-2xx answers or errors', measured: String(bad), met: bad === 0 });
  }
  return out;
}

function storeSection(run: StoreRun, opts: Options): string {
  const m = run.machine;
  const v = verdicts(run);
  const title = run.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL';
  const busy = run.measurements.filter((x) => x.cpu.other > 0.25);
  const lines = [
    `Run ${run.startedAt} at commit ${m.revision} — ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB.toFixed(1)} GiB RAM, ${m.kernel}; Node ${m.node}; SQLite ${m.sqlite} (node:sqlite); PostgreSQL server ${m.postgres}.`,
    `${opts.connections} connections, ${opts.duration} s per scenario${opts.nodeOptions.length ? ` (server node flags: ${opts.nodeOptions.join(' ')})` : ''} (after a ${WARMUP_SECONDS} s warm-up for ingest and for the list), ${title} store${run.kind === 'sqlite' ? ' (WAL, synchronous=FULL, group commit as shipped)' : ''}.`,
    '',
    table(run),
    '',
    '| target | measured | met? |',
    '|---|---:|---|',
    ...v.map((x) => `| ${x.target} | ${x.measured} | ${x.met ? 'met' : '**NOT met**'} |`),
    '',
    ...run.measurements.filter((x) => x.note).map((x) => `- ${x.label}: ${x.note}.`),
    ...run.notes.map((n) => `- ${n}`),
    `- Server shutdown on SIGTERM after the runs: ${run.shutdown}.`,
  ];
  if (busy.length > 0) {
    lines.push(`- Other processes used CPU during ${busy.map((x) => x.scenario).join(', ')} ("other" ≥ 0.25 cores): other work may have been running concurrently; treat those figures as lower bounds.`);
  }
  return lines.join('\n');
}

const SKELETON = `# Benchmarks

Figures produced by \`npm run bench\` (bench/run.ts). The sections between the \`bench:*\` markers are rewritten by
each full run; the rest of this file is written by hand.

## How to run

\`\`\`sh
npm run bench                          # both stores, 50 connections, 15 s per scenario; rewrites the sections below
npm run bench -- --store sqlite        # one store (rewrites only its section)
npm run bench -- --duration 3          # a quick run: prints the table, leaves this file alone (--write-docs to write it)
npm run bench -- --store sqlite --scenarios new --duration 8 --cpu-prof /tmp/prof   # profile the server
npx node bench/profile-summary.ts /tmp/prof --top 30 [--callers all]                 # self time by function/area
\`\`\`

## SQLite

<!-- bench:sqlite:begin -->
(not run yet)
<!-- bench:sqlite:end -->

## PostgreSQL

<!-- bench:postgres:begin -->
(not run yet)
<!-- bench:postgres:end -->
`;

function writeDoc(runs: StoreRun[], opts: Options): void {
  let doc = existsSync(DOC) ? readFileSync(DOC, 'utf8') : SKELETON;
  for (const run of runs) {
    const begin = `<!-- bench:${run.kind}:begin -->`;
    const end = `<!-- bench:${run.kind}:end -->`;
    const i = doc.indexOf(begin);
    const j = doc.indexOf(end);
    if (i < 0 || j < i) throw new Error(`${DOC} lacks the markers ${begin} … ${end}`);
    doc = `${doc.slice(0, i + begin.length)}\n${storeSection(run, opts)}\n${doc.slice(j)}`;
  }
  mkdirSync(path.dirname(DOC), { recursive: true });
  writeFileSync(DOC, doc);
  log(`wrote ${path.relative(ROOT, DOC)}`);
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = readOptions(process.argv.slice(2));
  const info = await machine();
  log(`commit ${info.revision}; ${info.cpus} CPUs (${info.cpuModel}), ${info.memoryGiB.toFixed(1)} GiB, Node ${info.node}, SQLite ${info.sqlite}, PostgreSQL ${info.postgres}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const runs: StoreRun[] = [];
  let failed = false;
  for (const kind of opts.stores) {
    if (interrupted) break;
    try {
      const run = await benchStore(kind, opts, info);
      runs.push(run);
      process.stdout.write(`\n### ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'}\n\n${storeSection(run, opts)}\n`);
    } catch (err) {
      failed = true;
      process.stderr.write(`bench: ${kind} failed: ${(err as Error).stack ?? String(err)}\n`);
    }
  }
  await releaseAll();
  if (interrupted) return;
  if (opts.writeDocs && runs.length > 0) writeDoc(runs, opts);
  else if (runs.length > 0) log('quick or partial run: docs/benchmarks.md left unchanged (pass --write-docs to write it)');
  if (failed) process.exitCode = 1;
}

main().catch(async (err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
  await releaseAll();
  process.exitCode = 1;
});
