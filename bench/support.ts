/**
 * What the benchmarks share (bench/run.ts, bench/latency.ts): cleanup of everything they create, the machine
 * and process measurements, PostgreSQL administration on loopback, a fresh store, and the server under test
 * as a child process with its API.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import type { StoreConfig } from '../src/config.ts';
import { MAIN, SERVER_ENV } from '../test/support/process.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DOC = path.join(ROOT, 'docs', 'benchmarks.md');
export const HOST = '127.0.0.1';
/** The largest value src/config.ts accepts for the rate limits (it rejects anything above 10,000,000). */
export const NO_LIMIT = '10000000';
export const PG_BASE = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
export const execFileP = promisify(execFile);
export { SERVER_NODE_FLAGS } from '../test/support/process.ts';

export type StoreKind = 'sqlite' | 'postgres';

export function log(message: string): void {
  process.stderr.write(`bench: ${message}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Cleanup: every resource the benchmark creates registers how to release it; released in reverse order on
// success, failure and Ctrl-C alike. Only the processes this script started are signalled, by their PID.

const releases: Array<{ name: string; fn: () => Promise<void> }> = [];
const liveChildren = new Set<ChildProcess>();
const tempDirs = new Set<string>();
let interrupted = false;
const interruptHandlers: Array<() => void> = [];

/** True once SIGINT or SIGTERM arrived: stop starting new work. */
export function isInterrupted(): boolean {
  return interrupted;
}

/** Runs `fn` at once when SIGINT or SIGTERM arrives (e.g. to stop a running load generator). */
export function onInterrupt(fn: () => void): void {
  interruptHandlers.push(fn);
}

/** Registers a resource; the function returned releases it (once) and drops the registration. */
export function hold(name: string, fn: () => Promise<void>): () => Promise<void> {
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

/** Releases everything still registered, newest first; a failing release is reported and the rest go on. */
export async function releaseAll(): Promise<void> {
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
  for (const fn of interruptHandlers) fn();
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

export interface Machine {
  revision: string;
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  sqlite: string;
  postgres: string;
  kernel: string;
}

export async function machine(): Promise<Machine> {
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
export async function revision(): Promise<string> {
  if (process.env.BENCH_REVISION) return process.env.BENCH_REVISION;
  try {
    const head = (await execFileP('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD'])).stdout.trim();
    const dirty = (await execFileP('git', ['-C', ROOT, 'status', '--porcelain', '--', 'src', 'package.json', 'package-lock.json'])).stdout.trim();
    return dirty ? `${head} with uncommitted changes under src/ or package files` : `${head} (clean)`;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

export function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Samples the server's resident set size every 250 ms; returns the peak in MiB. */
export function rssSampler(pid: number): { stop: () => number } {
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
export function procTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
/** CPU ticks of each PostgreSQL server process on this machine, by PID (its backends do the store's work). */
export function postgresTicks(): Map<number, number> {
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
export function postgresMeter(): { sample: () => void; ticks: () => number } {
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

export function machineTicks(): { procs: number; irq: number; steal: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line.split(/\s+/).slice(1).map(Number);
  return { procs: user + nice + system, irq: irq + softirq, steal, total: user + nice + system + idle + iowait + irq + softirq + steal };
}
export interface CpuUse {
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
export function cpuMeter(serverPid: number): { stop: () => CpuUse } {
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
export async function waitForQuiet(serverPid: number): Promise<number> {
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

export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (!['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host)) throw new Error(`BENCH_PG_URL must point at loopback, got ${host}`);
}

export async function adminQuery(text: string): Promise<pg.QueryResult> {
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

export interface Server {
  child: ChildProcess;
  pid: number;
  port: number;
  /** The last lines it printed, for error messages. */
  tail: string[];
  /** Drops the cleanup registration (stopping it first if it still runs). */
  release: () => Promise<void>;
}

export function childEnv(databaseUrl: string): NodeJS.ProcessEnv {
  // The launcher's environment as `npm start` and `npx alertflow` get it; the caller's may override it for an A/B.
  const env: NodeJS.ProcessEnv = { ...SERVER_ENV, ...process.env };
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

export async function startServer(env: NodeJS.ProcessEnv, nodeFlags: readonly string[], serveArgs: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [...nodeFlags, MAIN, 'serve', ...serveArgs], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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
export async function stopServer(child: ChildProcess): Promise<string> {
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

export async function api<T>(server: Server, method: string, url: string, apiKey: string, body?: unknown): Promise<T> {
  const res = await fetch(`http://${HOST}:${server.port}${url}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}

// ---------------------------------------------------------------------------------------------------------
// A fresh store per run

export interface BenchStore {
  /** DATABASE_URL for the server and the CLI. */
  databaseUrl: string;
  config: StoreConfig;
  /** Deletes the temp dir (SQLite) or drops the database (PostgreSQL); also done by releaseAll(). */
  release: () => Promise<void>;
}

/** SQLite in a new temp dir, or a new PostgreSQL database `alertflow_bench_<random>` dropped WITH (FORCE) afterwards. */
export async function freshStore(kind: StoreKind): Promise<BenchStore> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-bench-'));
    tempDirs.add(dir);
    const release = hold(`temp dir ${dir}`, async () => {
      rmSync(dir, { recursive: true, force: true });
      tempDirs.delete(dir);
    });
    const file = path.join(dir, 'alertflow.db');
    return { databaseUrl: `sqlite://${file}`, config: { kind: 'sqlite', file }, release };
  }
  const name = `alertflow_bench_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database "${name}"`);
  const release = hold(`database ${name}`, async () => {
    await adminQuery(`drop database if exists "${name}" with (force)`);
  });
  const databaseUrl = `${PG_BASE}/${name}`;
  return { databaseUrl, config: { kind: 'postgres', url: databaseUrl }, release };
}

/** `alertflow <args>` (the CLI, through its launcher) against the store of `env`; its last stdout line parsed as JSON. */
export async function cliJson<T>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const out = await execFileP(process.execPath, [MAIN, ...args], { cwd: ROOT, env });
  return JSON.parse(out.stdout.trim().split('\n').pop() as string) as T;
}

/** A command-line option that must be a positive whole number; `usage` reports a bad one and exits. */
export function wholeNumber(raw: string | undefined, name: string, fallback: number, usage: (message: string) => never): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) usage(`--${name} must be a positive whole number, got "${raw}"`);
  return Number(raw);
}

// ---------------------------------------------------------------------------------------------------------
// The browser benches (bench/dashboard.ts, bench/live.ts)

/** Signs `email` in through `POST /api/v1/auth/login` at `base`: the value of its `af_session` cookie. */
export async function signInSession(base: string, email: string, password: string): Promise<string> {
  const login = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status} ${await login.text()}`);
  const session = /af_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')?.[1];
  if (!session) throw new Error('sign-in set no af_session cookie');
  return session;
}

/**
 * Puts `section` between the `begin` and `end` markers of docs/benchmarks.md, or, the first time, adds it as a new
 * `heading` before `beforeHeading` (at the end when that heading is absent).
 */
export function writeDocSection(begin: string, end: string, section: string, heading: string, beforeHeading = ''): void {
  let doc = readFileSync(DOC, 'utf8');
  const block = `${begin}\n${section}\n${end}`;
  if (doc.includes(begin) && doc.includes(end)) doc = `${doc.slice(0, doc.indexOf(begin))}${block}${doc.slice(doc.indexOf(end) + end.length)}`;
  else {
    const at = beforeHeading ? doc.indexOf(`\n${beforeHeading}`) : -1;
    const add = `${heading}\n\n${block}\n`;
    doc = at < 0 ? `${doc.trimEnd()}\n\n${add}` : `${doc.slice(0, at + 1)}${add}\n${doc.slice(at + 1)}`;
  }
  writeFileSync(DOC, doc);
  log(`wrote ${path.relative(ROOT, DOC)}`);
}
