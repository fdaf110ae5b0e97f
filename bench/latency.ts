/**
 * From alert to page: `npm run bench:latency [-- --store sqlite|postgres] [--alerts 1000] [--rate 100] [--write-docs|--no-docs]`.
 *
 * For each store it starts a fresh server (as bench/run.ts does: a child process on 127.0.0.1, a fresh SQLite file
 * or PostgreSQL database, rate limits lifted, the default JOB_* settings) with SMTP_URL pointing at a local SMTP
 * sink (smtp-server) and OUTBOUND_ALLOW=127.0.0.1/32 so a webhook may reach a local HTTP sink (node:http). It creates
 * an organization and a user (CLI), a schedule with that user on call now, a workflow on `alert.created`
 * (email the on-call → signed webhook → create_incident grouped by labels.service → assign to the schedule's
 * on-call; the pages come before create_incident, after which an action would page once per incident) and an
 * integration (API). Then it sends `--alerts` new alerts open-loop at `--rate` per second (send i
 * is due at t0 + i/rate, whether or not earlier answers came back), labels.service cycling over `--services`
 * services so most alerts join an open incident. Each alert's title carries a marker `bench-<run>-<i>`.
 *
 * Latency, per channel, is the time from the alert's ingest answer (200) arriving at this process to
 *   email:   the SMTP sink completing the message's DATA (the moment it accepts the message), and
 *   webhook: the HTTP sink having the whole request (it answers 200).
 * All times are taken in this process on one monotonic clock. It waits until every email and webhook arrived,
 * at most `--deadline` seconds after the last send, then counts missing and duplicate deliveries (both must be 0)
 * and reports p50/p90/p99/max per channel, the achieved send rate, and where the time went (from the store: when
 * each workflow run started; on PostgreSQL also pg-boss's job timestamps).
 *
 * The knee: `--rates 100,200,300,400` runs each store at each rate in turn (`--seconds` of steady sending each,
 * default 10: `rate × seconds` alerts, a fresh server per run) and prints, after the runs, one row per rate and
 * the highest rate that holds the target (p99 of both channels within it, nothing missing, nothing twice).
 *
 * It prints a markdown table and, with --write-docs or a full default run (both stores, 1,000 alerts at 100/s,
 * no --server-env), writes it into docs/benchmarks.md between `<!-- bench:latency:begin -->` and
 * `<!-- bench:latency:end -->`. `--server-env NAME=VALUE` (repeatable) sets a server variable for experiments
 * (e.g. JOB_POLL_MS=50); such runs never write the docs unless --write-docs is given.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import { createStore } from '../src/db/database.ts';
import {
  api, childEnv, cliJson, cpuMeter, DOC, freshStore, HOST, hold, isInterrupted, log, machine, releaseAll, ROOT,
  SERVER_NODE_FLAGS, startServer, stopServer, waitForQuiet, type BenchStore, type CpuUse, type Machine, type Server, type StoreKind, wholeNumber } from './support.ts';

const DEFAULT_ALERTS = 1000;
const DEFAULT_RATE = 100;
const DEFAULT_SERVICES = 10;
const DEFAULT_DEADLINE_SECONDS = 60;
/** After everything arrived, how long to keep listening for repeats before counting duplicates. */
const GRACE_MS = 2000;
const TARGET_MS: Record<StoreKind, number> = { sqlite: 1000, postgres: 2000 };
const SECRET = 'bench-latency-webhook-secret-0123456789';
/** The JOB_* defaults of src/config.ts, named in the report; the server gets none of these variables from us. */
const JOB_DEFAULTS = 'JOB_POLL_MS=250, JOB_CONCURRENCY=4, DELIVERY_CONCURRENCY=16, JOB_LEASE_SECONDS=60, JOB_WORKERS=true';

/** Wall-clock milliseconds with sub-millisecond resolution, monotonic within this process. */
const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------------------
// Options

interface Options {
  stores: StoreKind[];
  alerts: number;
  rate: number;
  services: number;
  deadlineSeconds: number;
  /** Extra server environment (experiments). */
  serverEnv: Record<string, string>;
  /** Keep smtp-server's 100 ms greeting pause (see greetAtOnce). */
  smtpGreetingDelay: boolean;
  /** The server as `--role api` plus a second process `--role worker` running the jobs. */
  workerProcess: boolean;
  /** Writes every alert's times (JSON lines) to DIR/latency-<store>.jsonl. */
  dumpDir: string | undefined;
  /** Profiles the server (`--cpu-prof`); the .cpuprofile is written when it stops. */
  cpuProfDir: string | undefined;
  writeDocs: boolean;
  /** A knee sweep: the rates to run, each for `seconds` (empty: one run at `rate`). */
  rates: number[];
  seconds: number;
}

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nUsage: npm run bench:latency -- [--store sqlite|postgres] [--alerts N] [--rate N] [--services N] [--deadline SECONDS] [--server-env NAME=VALUE]... [--smtp-greeting-delay] [--worker-process] [--dump DIR] [--cpu-prof DIR] [--write-docs|--no-docs] [--rates R1,R2,… [--seconds 10]]\n`);
  process.exit(2);
}

const positiveInt = (raw: string | undefined, name: string, fallback: number): number => wholeNumber(raw, name, fallback, usage);

function readOptions(argv: string[]): Options {
  let values;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        store: { type: 'string' },
        alerts: { type: 'string' },
        rate: { type: 'string' },
        services: { type: 'string' },
        deadline: { type: 'string' },
        'server-env': { type: 'string', multiple: true },
        'smtp-greeting-delay': { type: 'boolean' },
        'worker-process': { type: 'boolean' },
        dump: { type: 'string' },
        'cpu-prof': { type: 'string' },
        'write-docs': { type: 'boolean' },
        'no-docs': { type: 'boolean' },
        rates: { type: 'string' },
        seconds: { type: 'string' },
      },
    }).values;
  } catch (err) {
    usage((err as Error).message);
  }
  const store = values.store ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(store)) usage(`--store must be sqlite, postgres or both, got "${store}"`);
  const serverEnv: Record<string, string> = {};
  for (const kv of values['server-env'] ?? []) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(kv);
    if (!m) usage(`--server-env takes NAME=VALUE, got "${kv}"`);
    serverEnv[m[1] as string] = m[2] as string;
  }
  const alerts = positiveInt(values.alerts, 'alerts', DEFAULT_ALERTS);
  const rate = positiveInt(values.rate, 'rate', DEFAULT_RATE);
  const services = positiveInt(values.services, 'services', DEFAULT_SERVICES);
  const smtpGreetingDelay = values['smtp-greeting-delay'] === true;
  const rates = values.rates === undefined ? [] : values.rates.split(',').map((r) => positiveInt(r.trim(), 'rates', 0));
  if (rates.length > 0 && (values.alerts !== undefined || values.rate !== undefined)) usage('--rates sets each run\'s rate and alerts (rate × --seconds); leave out --rate and --alerts');
  const full = rates.length === 0 && store === 'both' && alerts === DEFAULT_ALERTS && rate === DEFAULT_RATE && services === DEFAULT_SERVICES
    && Object.keys(serverEnv).length === 0 && !smtpGreetingDelay && values['cpu-prof'] === undefined && values['worker-process'] !== true;
  return {
    stores: store === 'both' ? ['sqlite', 'postgres'] : [store as StoreKind],
    alerts,
    rate,
    services,
    deadlineSeconds: positiveInt(values.deadline, 'deadline', DEFAULT_DEADLINE_SECONDS),
    serverEnv,
    smtpGreetingDelay,
    workerProcess: values['worker-process'] === true,
    dumpDir: values.dump === undefined ? undefined : path.resolve(values.dump),
    cpuProfDir: values['cpu-prof'] === undefined ? undefined : path.resolve(values['cpu-prof']),
    writeDocs: rates.length > 0 ? false : values['no-docs'] === true ? false : values['write-docs'] === true || full,
    rates,
    seconds: positiveInt(values.seconds, 'seconds', 10),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Sinks: where the pages arrive. Both key what they receive by the marker in the alert title.

/** Arrival times (ms, see now()) by alert number; more than one entry is a duplicate. */
type Arrivals = Map<number, number[]>;

interface Sink {
  port: number;
  arrivals: Arrivals;
  /** Messages whose marker was missing or of another run. */
  unmatched: number;
  close(): Promise<void>;
}

function noteArrival(sink: Sink, marker: RegExp, text: string, at: number): void {
  const m = marker.exec(text);
  if (!m) {
    sink.unmatched++;
    return;
  }
  const n = Number(m[1]);
  const list = sink.arrivals.get(n);
  if (list) list.push(at);
  else sink.arrivals.set(n, [at]);
}

/** The header block of a message, folded lines joined. */
const headerBlock = (raw: string): string => {
  const i = raw.search(/\r?\n\r?\n/);
  return (i < 0 ? raw : raw.slice(0, i)).replace(/\r?\n[ \t]+/g, ' ');
};

/**
 * smtp-server holds back its 220 greeting for 100 ms on every connection to catch clients that talk before it
 * (SMTPConnection.init, hard-coded in 3.21.6): an anti-spam pause of the sink, not time the service spends, and it
 * would hold each of the server's delivery workers 100 ms per email (nodemailer opens one connection per message).
 * The sink greets at once, as a relay without such a pause (Postfix without postscreen) does, unless
 * --smtp-greeting-delay keeps smtp-server's behaviour.
 */
function greetAtOnce(): void {
  const proto = SMTPConnection.prototype as unknown as { init(): void; _setListeners(cb: () => void): void; connectionReady(): void };
  proto.init = function init(this: typeof proto) {
    this._setListeners(() => this.connectionReady());
  };
}

/** A real SMTP server on 127.0.0.1 (no TLS, no AUTH). A message counts when its DATA completes, right before the 250 reply. */
async function startSmtpSink(marker: RegExp): Promise<Sink> {
  const sink: Sink = { port: 0, arrivals: new Map(), unmatched: 0, close: async () => {} };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    disableReverseLookup: true,
    logger: false,
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const at = now();
        const subject = /^subject:(.*)$/im.exec(headerBlock(Buffer.concat(chunks).toString('utf8')))?.[1] ?? '';
        noteArrival(sink, marker, subject, at);
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve());
  });
  sink.port = (server.server.address() as AddressInfo).port;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}

/** A local HTTP server: a POST counts once its whole body arrived; it answers 200. */
async function startHttpSink(marker: RegExp): Promise<Sink> {
  const sink: Sink = { port: 0, arrivals: new Map(), unmatched: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      let title = '';
      try {
        title = String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { alert?: { title?: unknown } }).alert?.title ?? '');
      } catch {
        // counted as unmatched
      }
      noteArrival(sink, marker, title, at);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, () => resolve());
  });
  sink.port = (server.address() as AddressInfo).port;
  sink.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return sink;
}

// ---------------------------------------------------------------------------------------------------------
// Figures

interface Stats {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles. */
function stats(values: number[]): Stats | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number;
  return { n: s.length, p50: at(50), p90: at(90), p99: at(99), max: s[s.length - 1] as number };
}

interface ChannelResult {
  received: number;
  missing: number;
  duplicates: number;
  unmatched: number;
  latency: Stats | undefined;
  /** From the start of the alert's workflow run to the sink. */
  fromRun: Stats | undefined;
}

interface Stage {
  label: string;
  stats: Stats | undefined;
}

interface LatencyRun {
  kind: StoreKind;
  machine: Machine;
  startedAt: string;
  load1: number;
  waitedForQuiet: number;
  alerts: number;
  rate: number;
  services: number;
  deadlineSeconds: number;
  serverEnv: Record<string, string>;
  smtpGreetingDelay: boolean;
  workerProcess: boolean;
  /** The server's main thread while the alerts were sent: shares of samples running (or runnable), in disk wait, idle. */
  mainThread: ThreadStates;
  /** Server CPU time (all threads) per alert, ms, from the first send to the end. */
  serverCpuMsPerAlert: number;
  /** Alerts per second from the first send to the last. */
  achievedRate: number;
  /** How late the sends were against their schedule. */
  sendLag: Stats | undefined;
  /**
   * This process's own event-loop delay (ms, p99 and max) from the first send to the last answer: it times the
   * answers and runs both sinks, so a busy loop here shows as ingest and page latency the server did not cause.
   */
  benchLoop: { p99: number; max: number };
  ingestErrors: string[];
  ingest: Stats | undefined;
  email: ChannelResult;
  webhook: ChannelResult;
  stages: Stage[];
  /** Until the last delivery arrived, or the deadline. */
  drainSeconds: number;
  /** Emails and webhooks that arrived, per second from the first arrival to the last: what the workers kept up with. */
  deliveriesPerSecond: number;
  cpu: CpuUse;
  notes: string[];
  shutdown: string;
}

interface ThreadStates {
  running: number;
  diskWait: number;
  idle: number;
  samples: number;
}

/**
 * Samples the state of the server's main thread (its event loop) every 10 ms from /proc: R (running, or runnable
 * waiting for a core), D (waiting for the disk, e.g. in fsync: node:sqlite runs on this thread) or S (idle, in epoll).
 */
function threadSampler(pid: number): { stop: () => ThreadStates } {
  const counts = { R: 0, D: 0, S: 0 };
  let samples = 0;
  const timer = setInterval(() => {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
      const state = stat[stat.lastIndexOf(')') + 2];
      samples++;
      if (state === 'R' || state === 'D' || state === 'S') counts[state]++;
    } catch {
      // the process ended
    }
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      const n = Math.max(1, samples);
      return { running: counts.R / n, diskWait: counts.D / n, idle: counts.S / n, samples };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// One store

interface Sent {
  /** Due time, actual send time, answer time (ms, see now()). */
  due: number;
  sentAt: number;
  answeredAt: number | undefined;
  alertId: string | undefined;
  error: string | undefined;
}

async function ingestOne(server: Server, token: string, body: string, rec: Sent): Promise<void> {
  try {
    const res = await fetch(`http://${HOST}:${server.port}/api/inbound/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const text = await res.text();
    const at = now();
    if (res.status !== 200) {
      rec.error = `HTTP ${res.status}: ${text.slice(0, 200)}`;
      return;
    }
    rec.answeredAt = at;
    rec.alertId = (JSON.parse(text) as { data: { alerts: Array<{ alertId: string }> } }).data.alerts[0]?.alertId;
  } catch (err) {
    // fetch says only "fetch failed"; the reason (a refused or reset connection, a timeout) is its cause.
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    rec.error = `${(err as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`;
  }
}

function channelResult(sink: Sink, sent: Sent[], runStart: Map<string, number>): ChannelResult {
  const latency: number[] = [];
  const fromRun: number[] = [];
  let missing = 0;
  let duplicates = 0;
  for (const [i, rec] of sent.entries()) {
    const times = sink.arrivals.get(i);
    if (!times || times.length === 0) {
      missing++;
      // Never arrived (by the deadline): counted as infinitely late, so the percentiles do not flatter.
      if (rec.answeredAt !== undefined) latency.push(Infinity);
      continue;
    }
    duplicates += times.length - 1;
    const first = Math.min(...times);
    if (rec.answeredAt !== undefined) latency.push(first - rec.answeredAt);
    const run = rec.alertId ? runStart.get(rec.alertId) : undefined;
    if (run !== undefined) fromRun.push(first - run);
  }
  let received = 0;
  for (const [i, times] of sink.arrivals) if (i < sent.length) received += times.length > 0 ? 1 : 0;
  return { received, missing, duplicates, unmatched: sink.unmatched, latency: stats(latency), fromRun: stats(fromRun) };
}

/** When each alert's workflow run started (server clock), and on PostgreSQL pg-boss's view of the two queues. */
async function timeline(store: BenchStore, orgId: string, sent: Sent[]): Promise<{ runStart: Map<string, number>; stages: Stage[]; notes: string[] }> {
  const db = await createStore(store.config);
  const notes: string[] = [];
  const stages: Stage[] = [];
  const runStart = new Map<string, number>();
  try {
    const runs = await db.db.selectFrom('workflow_runs').select(['alert_id', 'created_at', 'matched']).where('org_id', '=', orgId).execute();
    for (const r of runs) runStart.set(r.alert_id, Number(r.created_at));
    const unmatched = runs.filter((r) => Number(r.matched) !== 1).length;
    if (runs.length !== sent.length || unmatched > 0) notes.push(`${runs.length} workflow runs recorded for ${sent.length} alerts, ${unmatched} not matching`);
    const byAlert = new Map(sent.filter((s) => s.alertId).map((s) => [s.alertId as string, s]));
    const toRun: number[] = [];
    for (const [alertId, start] of runStart) {
      const rec = byAlert.get(alertId);
      if (rec?.answeredAt !== undefined) toRun.push(start - rec.answeredAt);
    }
    stages.push({ label: 'ingest answer → workflow run starts (outbox relay + `alert-events` queue)', stats: stats(toRun) });

    const notifications = await db.db.selectFrom('notifications').select(['id', 'channel', 'status', 'attempts']).where('org_id', '=', orgId).execute();
    const retried = notifications.filter((n) => Number(n.attempts) > 1).length;
    const notSent = notifications.filter((n) => n.status !== 'sent').length;
    notes.push(`${notifications.length} notifications recorded (${notifications.filter((n) => n.channel === 'email').length} email, ${notifications.filter((n) => n.channel === 'webhook').length} webhook); ${notSent} not \`sent\`; ${retried} needed more than one attempt`);

    if (store.config.kind === 'postgres') {
      // pg-boss keeps completed jobs: created_on is the start of the transaction that queued the job (now()),
      // started_on when a worker fetched it, completed_on when its handler returned.
      try {
        const jobs = await sql<{ name: string; notification: string | null; created: number; started: number | null; completed: number | null }>`
          select name, data->'payload'->>'notificationId' as notification,
            extract(epoch from created_on) * 1000 as created, extract(epoch from started_on) * 1000 as started,
            extract(epoch from completed_on) * 1000 as completed
          from pgboss.job where name in ('alert-events', 'deliveries')`.execute(db.db);
        const channelOf = new Map(notifications.map((n) => [n.id, n.channel]));
        const wait = (name: string, channel?: string) => stats(jobs.rows
          .filter((j) => j.name === name && j.started !== null && (channel === undefined || channelOf.get(j.notification ?? '') === channel))
          .map((j) => Number(j.started) - Number(j.created)));
        const run = (name: string, channel?: string) => stats(jobs.rows
          .filter((j) => j.name === name && j.started !== null && j.completed !== null && (channel === undefined || channelOf.get(j.notification ?? '') === channel))
          .map((j) => Number(j.completed) - Number(j.started)));
        stages.push(
          { label: 'pg-boss `alert-events` job: queued (relay transaction) → fetched by a worker', stats: wait('alert-events') },
          { label: 'pg-boss `alert-events` job: fetched → done (the workflow run)', stats: run('alert-events') },
          { label: 'pg-boss `deliveries` job (email): queued (run transaction) → fetched', stats: wait('deliveries', 'email') },
          { label: 'pg-boss `deliveries` job (email): fetched → done (SMTP send, recorded)', stats: run('deliveries', 'email') },
          { label: 'pg-boss `deliveries` job (webhook): queued (run transaction) → fetched', stats: wait('deliveries', 'webhook') },
          { label: 'pg-boss `deliveries` job (webhook): fetched → done (POST, recorded)', stats: run('deliveries', 'webhook') },
        );
      } catch (err) {
        notes.push(`pg-boss job timestamps not read: ${(err as Error).message}`);
      }
    }
  } finally {
    await db.close();
  }
  return { runStart, stages, notes };
}

async function benchStore(kind: StoreKind, opts: Options, info: Machine): Promise<LatencyRun> {
  const startedAt = new Date().toISOString();
  const notes: string[] = [];
  const runId = randomBytes(4).toString('hex');
  const marker = new RegExp(`\\bbench-${runId}-(\\d+)\\b`);
  const store = await freshStore(kind);
  log(`${kind}: store ${store.databaseUrl}`);
  let shutdown = 'not started';
  let result: LatencyRun | undefined;
  try {
    const smtp = await startSmtpSink(marker);
    const releaseSmtp = hold(`SMTP sink :${smtp.port}`, smtp.close);
    const web = await startHttpSink(marker);
    const releaseWeb = hold(`HTTP sink :${web.port}`, web.close);
    try {
      const env = childEnv(store.databaseUrl);
      // The JOB_* defaults are measured; nothing from the caller's environment changes them or the mail setup.
      for (const k of Object.keys(env)) if (k.startsWith('JOB_') || k.startsWith('SMTP_')) delete env[k];
      Object.assign(env, { SMTP_URL: `smtp://${HOST}:${smtp.port}`, OUTBOUND_ALLOW: '127.0.0.1/32' }, opts.serverEnv);

      const org = await cliJson<{ org: { id: string }; apiKey: string }>(['org', 'create', '--name', 'Bench latency', '--json'], env);
      const user = await cliJson<{ user: { id: string; email: string } }>(['user', 'add', '--org', org.org.id, '--email', 'oncall@bench.example.com', '--name', 'On Call', '--json'], env);
      const key = org.apiKey;

      const server = await startServer(env, [...SERVER_NODE_FLAGS, ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [])], opts.workerProcess ? ['--role', 'api'] : []);
      // The measured server answers ingest and the API; with --worker-process the jobs run in a second process.
      const worker = opts.workerProcess ? await startServer(env, SERVER_NODE_FLAGS, ['--role', 'worker']) : undefined;
      if (worker) log(`${kind}: worker pid ${worker.pid}`);
      log(`${kind}: server pid ${server.pid} listening on ${HOST}:${server.port}; SMTP sink :${smtp.port}, HTTP sink :${web.port}`);
      try {
        const schedule = await api<{ data: { id: string } }>(server, 'POST', '/api/v1/schedules', key, {
          name: 'Primary', timezone: 'UTC',
          layers: [{ name: 'Weekly', startsAt: new Date(Date.now() - 3_600_000).toISOString(), rotation: 'weekly', users: [user.user.id] }],
        });
        const scheduleId = schedule.data.id;
        await api(server, 'POST', '/api/v1/workflows', key, {
          name: 'Page the on-call', trigger: 'alert.created',
          actions: [
            // The pages come first: after create_incident an action pages once per incident (a storm pages each
            // target once), and this benchmark measures a page per alert.
            { type: 'email', toOnCall: scheduleId },
            { type: 'webhook', url: `http://${HOST}:${web.port}/hook`, secret: SECRET },
            { type: 'create_incident', groupBy: ['labels.service'] },
            { type: 'assign', scheduleId },
          ],
        });
        const integration = await api<{ data: { token: string } }>(server, 'POST', '/api/v1/integrations', key, { name: 'Bench latency' });
        const token = integration.data.token;

        const waitedForQuiet = await waitForQuiet(server.pid);
        const load1 = os.loadavg()[0] ?? 0;
        const cpu = cpuMeter(server.pid);
        const measureStart = now();
        const thread = threadSampler(server.pid);
        const loop = monitorEventLoopDelay({ resolution: 10 });
        loop.enable();
        log(`${kind}: ${opts.alerts} alerts at ${opts.rate}/s (load1 ${load1.toFixed(2)})`);

        // Open loop: send i is due at t0 + i/rate, whatever happened to the earlier ones.
        const sent: Sent[] = [];
        const inFlight: Promise<void>[] = [];
        const t0 = now() + 50;
        for (let i = 0; i < opts.alerts && !isInterrupted(); i++) {
          const due = t0 + (i * 1000) / opts.rate;
          const wait = due - now();
          if (wait > 0.5) await sleep(wait);
          const rec: Sent = { due, sentAt: now(), answeredAt: undefined, alertId: undefined, error: undefined };
          sent.push(rec);
          const body = JSON.stringify({
            title: `bench-${runId}-${i} p99 latency above 500 ms`,
            severity: 'high',
            source: 'bench',
            fingerprint: `bench-${runId}-${i}`,
            description: 'Synthetic alert sent by npm run bench:latency',
            labels: { service: `svc-${i % opts.services}`, env: 'bench', host: `web-${i % 7}` },
          });
          inFlight.push(ingestOne(server, token, body, rec));
        }
        const lastSend = sent.at(-1)?.sentAt ?? now();
        const mainThread = thread.stop();
        await Promise.all(inFlight);
        loop.disable();
        const benchLoop = { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 };
        const firstSend = sent[0]?.sentAt ?? lastSend;
        const achievedRate = sent.length > 1 ? ((sent.length - 1) * 1000) / (lastSend - firstSend) : 0;

        // Until every page arrived, or the deadline.
        const expected = sent.length;
        const complete = () => smtp.arrivals.size >= expected && web.arrivals.size >= expected;
        const deadline = lastSend + opts.deadlineSeconds * 1000;
        while (!complete() && now() < deadline && !isInterrupted()) await sleep(20);
        const lastArrival = Math.max(lastSend, ...[...smtp.arrivals.values(), ...web.arrivals.values()].flat());
        const drainSeconds = (lastArrival - lastSend) / 1000;
        const arrivals = [...smtp.arrivals.values(), ...web.arrivals.values()].flat();
        const deliveriesPerSecond = arrivals.length > 1 ? ((arrivals.length - 1) * 1000) / (Math.max(...arrivals) - Math.min(...arrivals)) : 0;
        log(`${kind}: ${smtp.arrivals.size} emails and ${web.arrivals.size} webhooks of ${expected} each, the last ${drainSeconds.toFixed(1)} s after the last send; listening ${GRACE_MS / 1000} s more for repeats`);
        await sleep(GRACE_MS);
        const cpuUse = cpu.stop();
        const measureEnd = now();

        const { runStart, stages, notes: storeNotes } = await timeline(store, org.org.id, sent);
        notes.push(...storeNotes);
        if (opts.dumpDir) {
          // Times relative to the first send, in ms: due, sent, answered, workflow run started, email, webhook.
          const t = sent[0]?.sentAt ?? 0;
          const rel = (x: number | undefined) => (x === undefined ? null : Math.round((x - t) * 10) / 10);
          const lines = sent.map((s, i) => JSON.stringify({
            i, due: rel(s.due), sent: rel(s.sentAt), answered: rel(s.answeredAt), run: rel(s.alertId ? runStart.get(s.alertId) : undefined),
            email: (smtp.arrivals.get(i) ?? []).map(rel), webhook: (web.arrivals.get(i) ?? []).map(rel),
          }));
          mkdirSync(opts.dumpDir, { recursive: true });
          const file = path.join(opts.dumpDir, `latency-${kind}.jsonl`);
          writeFileSync(file, `${lines.join('\n')}\n`);
          log(`${kind}: per-alert times in ${file}`);
        }
        const ingestErrors = sent.map((s, i) => (s.error ? `alert ${i}: ${s.error}` : '')).filter(Boolean);
        const email = channelResult(smtp, sent, runStart);
        const webhook = channelResult(web, sent, runStart);
        stages.push(
          { label: 'workflow run starts → email accepted by the SMTP sink', stats: email.fromRun },
          { label: 'workflow run starts → webhook received', stats: webhook.fromRun },
        );

        // The incidents the alerts opened or joined: one per service, every alert in one, assigned to the on-call.
        const incidents = await api<{ data: Array<{ alertCount: number; assigneeId: string | null }> }>(server, 'GET', '/api/v1/incidents?limit=100', key);
        const inIncidents = incidents.data.reduce((s, x) => s + x.alertCount, 0);
        const assigned = incidents.data.filter((x) => x.assigneeId === user.user.id).length;
        const incidentNote = `${incidents.data.length} incidents (one per service expected: ${Math.min(opts.services, expected)}) holding ${inIncidents} alerts, ${assigned} assigned to the on-call`;
        notes.push(incidentNote + (incidents.data.length === Math.min(opts.services, expected) && inIncidents === expected && assigned === incidents.data.length ? '' : ' — MISMATCH'));

        result = {
          kind, machine: info, startedAt, load1, waitedForQuiet, alerts: opts.alerts, rate: opts.rate, services: opts.services, deadlineSeconds: opts.deadlineSeconds, mainThread, serverCpuMsPerAlert: (cpuUse.server * (measureEnd - measureStart)) / Math.max(1, sent.length), serverEnv: opts.serverEnv, smtpGreetingDelay: opts.smtpGreetingDelay, workerProcess: opts.workerProcess,
          achievedRate, sendLag: stats(sent.map((s) => s.sentAt - s.due)), benchLoop, ingestErrors,
          ingest: stats(sent.filter((s) => s.answeredAt !== undefined).map((s) => (s.answeredAt as number) - s.sentAt)),
          email, webhook, stages, drainSeconds, deliveriesPerSecond, cpu: cpuUse, notes, shutdown,
        };
      } finally {
        shutdown = await stopServer(server.child);
        if (result) result.shutdown = shutdown;
        await server.release();
        if (worker) await worker.release();
        if (shutdown !== 'exit 0') notes.push(`server shutdown on SIGTERM: ${shutdown} (expected exit 0)`);
        if (server.tail.some((l) => /"level":(50|60)/.test(l))) notes.push(`server logged errors; last lines:\n${server.tail.join('\n')}`);
      }
    } finally {
      await releaseWeb();
      await releaseSmtp();
    }
  } finally {
    await store.release();
  }
  if (!result) throw new Error('interrupted');
  return result;
}

// ---------------------------------------------------------------------------------------------------------
// Report

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ms = (s: Stats | undefined, k: keyof Stats) => (s ? (Number.isFinite(s[k]) ? fmt(s[k]) : 'not arrived') : '–');
const pct = (x: number) => `${(100 * x).toFixed(0)} %`;
const storeTitle = (k: StoreKind) => (k === 'sqlite' ? 'SQLite' : 'PostgreSQL');

interface Verdict {
  target: string;
  measured: string;
  met: boolean;
}

function verdicts(run: LatencyRun): Verdict[] {
  const target = TARGET_MS[run.kind];
  const out: Verdict[] = [];
  for (const [name, c] of [['email', run.email], ['webhook', run.webhook]] as const) {
    const p99 = c.latency?.p99 ?? Infinity;
    out.push({ target: `${name}: p99 ≤ ${fmt(target / 1000)} s`, measured: c.latency ? (Number.isFinite(p99) ? `${fmt(p99)} ms` : `over ${run.deadlineSeconds} s (more than 1 % not arrived by the deadline)`) : 'nothing received', met: p99 <= target });
  }
  const missing = run.email.missing + run.webhook.missing;
  const dup = run.email.duplicates + run.webhook.duplicates;
  out.push({ target: `missing pages (not arrived ${run.deadlineSeconds} s after the last send): 0`, measured: String(missing), met: missing === 0 });
  out.push({ target: 'duplicate pages: 0', measured: String(dup), met: dup === 0 });
  out.push({ target: 'ingest answers: all 200', measured: `${run.alerts - run.ingestErrors.length} of ${run.alerts}`, met: run.ingestErrors.length === 0 });
  return out;
}

function storeSection(run: LatencyRun): string {
  const m = run.machine;
  const extra = Object.entries(run.serverEnv).map(([k, v]) => `${k}=${v}`).join(', ');
  const c = run.cpu;
  const lines = [
    `Run ${run.startedAt} at commit ${m.revision} — ${m.cpus} CPUs (${m.cpuModel}), ${m.memoryGiB.toFixed(1)} GiB RAM, ${m.kernel}; Node ${m.node}; SQLite ${m.sqlite} (node:sqlite); PostgreSQL server ${m.postgres}.`,
    `${fmt(run.alerts)} new alerts sent open-loop at ${fmt(run.rate)}/s (achieved ${fmt(run.achievedRate, 1)}/s; sends behind schedule p99 ${ms(run.sendLag, 'p99')} ms, max ${ms(run.sendLag, 'max')} ms; this process's event-loop delay until the last answer p99 ${fmt(run.benchLoop.p99)} ms, max ${fmt(run.benchLoop.max)} ms), labels.service over ${run.services} services; ${storeTitle(run.kind)} store; server with ${extra ? `${extra} (otherwise the defaults: ${JOB_DEFAULTS})` : `the default ${JOB_DEFAULTS}`}${run.workerProcess ? ', as `--role api` with the jobs in a second process `--role worker` (the CPU and main-thread figures are the API process\'s)' : ''}. `
      + `While sending, the server's main thread was running ${pct(run.mainThread.running)}, waiting for the disk ${pct(run.mainThread.diskWait)} and idle ${pct(run.mainThread.idle)} of the time (${run.mainThread.samples} samples from /proc); server CPU ${fmt(run.serverCpuMsPerAlert, 1)} ms per alert. `
      + `load1 at start ${run.load1.toFixed(2)}${run.waitedForQuiet > 2.5 ? ` (after waiting ${run.waitedForQuiet.toFixed(0)} s for a quieter machine)` : ''}; CPU cores from the first send to the end: server ${c.server.toFixed(2)} / bench ${c.client.toFixed(2)} / PostgreSQL ${c.postgres.toFixed(2)} / other ${c.other.toFixed(2)} / irq+steal ${(c.irq + c.steal).toFixed(2)}.`,
    '',
    `The SMTP sink is smtp-server ${run.smtpGreetingDelay ? 'as shipped, with its 100 ms pause before the 220 greeting' : 'greeting at once (without its 100 ms early-talker pause; see bench/latency.ts)'}, the HTTP sink node:http; both on 127.0.0.1 in the benchmark's process.`,
    '',
    '| from the ingest answer (200) to … | received | missing | duplicates | p50 ms | p90 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    `| email accepted by the SMTP sink (end of DATA) | ${run.email.received} | ${run.email.missing} | ${run.email.duplicates} | ${ms(run.email.latency, 'p50')} | ${ms(run.email.latency, 'p90')} | ${ms(run.email.latency, 'p99')} | ${ms(run.email.latency, 'max')} |`,
    `| webhook received by the HTTP sink | ${run.webhook.received} | ${run.webhook.missing} | ${run.webhook.duplicates} | ${ms(run.webhook.latency, 'p50')} | ${ms(run.webhook.latency, 'p90')} | ${ms(run.webhook.latency, 'p99')} | ${ms(run.webhook.latency, 'max')} |`,
    '',
    '| where the time goes | p50 ms | p90 ms | p99 ms | max ms |',
    '|---|---:|---:|---:|---:|',
    `| ingest request → its answer (client side) | ${ms(run.ingest, 'p50')} | ${ms(run.ingest, 'p90')} | ${ms(run.ingest, 'p99')} | ${ms(run.ingest, 'max')} |`,
    ...run.stages.map((s) => `| ${s.label} | ${ms(s.stats, 'p50')} | ${ms(s.stats, 'p90')} | ${ms(s.stats, 'p99')} | ${ms(s.stats, 'max')} |`),
    '',
    '| target | measured | met? |',
    '|---|---:|---|',
    ...verdicts(run).map((v) => `| ${v.target} | ${v.measured} | ${v.met ? 'met' : '**NOT met**'} |`),
    '',
    `- The last page arrived ${run.drainSeconds.toFixed(1)} s after the last send; pages arrived at ${fmt(run.deliveriesPerSecond)}/s from the first to the last (${fmt(2 * run.achievedRate)}/s were asked for).`,
    ...run.notes.map((n) => `- ${n}.`),
    ...(run.email.unmatched + run.webhook.unmatched > 0 ? [`- Messages without this run's marker: ${run.email.unmatched} emails, ${run.webhook.unmatched} webhooks.`] : []),
    ...(run.ingestErrors.length > 0 ? [`- Ingest failures (first 5): ${run.ingestErrors.slice(0, 5).join('; ')}.`] : []),
    `- Server shutdown on SIGTERM after the run: ${run.shutdown}.`,
  ];
  if (c.other > 0.25) lines.push(`- Other processes used ${c.other.toFixed(2)} cores during the run: other work was running concurrently; treat these figures as upper bounds.`);
  return lines.join('\n');
}

/** One row per store and rate of a sweep, and per store the highest rate at which every target held. */
function kneeTable(runs: LatencyRun[], seconds: number): string {
  const lines = [
    `Knee: ${seconds} s of steady sending per rate, a fresh server each; a rate holds when both channels' p99 is within the target and no page is missing or sent twice.`,
    '',
    // The ingest answer's own p99 beside the pages': latency is counted from that answer, so a server that answered
    // late would look faster here than its senders found it.
    '| store | alerts/s (achieved) | email p99 ms | webhook p99 ms | ingest answer p99 ms | pages/s | missing / twice | server CPU ms per alert | holds? |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  const knees: string[] = [];
  for (const kind of ['sqlite', 'postgres'] as const) {
    const mine = runs.filter((r) => r.kind === kind);
    if (mine.length === 0) continue;
    let knee: number | null = null;
    for (const r of mine) {
      const holds = verdicts(r).every((v) => v.met);
      if (holds && (knee === null || r.rate > knee)) knee = r.rate;
      lines.push(`| ${storeTitle(kind)} | ${fmt(r.rate)} (${fmt(r.achievedRate, 1)}) | ${ms(r.email.latency, 'p99')} | ${ms(r.webhook.latency, 'p99')} | ${ms(r.ingest, 'p99')} | ${fmt(r.deliveriesPerSecond)} | ${r.email.missing + r.webhook.missing} / ${r.email.duplicates + r.webhook.duplicates} | ${fmt(r.serverCpuMsPerAlert, 1)} | ${holds ? 'yes' : 'no'} |`);
    }
    knees.push(`- ${storeTitle(kind)} (p99 ≤ ${fmt(TARGET_MS[kind] / 1000)} s): ${knee === null ? 'no rate tried holds' : `the highest rate tried that holds is ${fmt(knee)} alerts/s`}.`);
  }
  return [...lines, '', ...knees].join('\n');
}

const BEGIN = '<!-- bench:latency:begin -->';
const END = '<!-- bench:latency:end -->';
const storeMarkers = (k: StoreKind) => [`<!-- bench:latency:${k}:begin -->`, `<!-- bench:latency:${k}:end -->`] as const;

const SECTION = `## From alert to page: notification latency

Produced by \`npm run bench:latency\` (bench/latency.ts): for each store, a fresh server with a workflow on
\`alert.created\` (open or join an incident per \`labels.service\`, assign it to the schedule's on-call, email the
on-call, signed webhook), 1,000 new alerts sent open-loop at 100/s over 10 services; latency from each alert's
ingest answer (200) to the email being accepted by a local SMTP server (end of DATA) and to the webhook arriving
at a local HTTP server. Targets: p99 ≤ 1 s on SQLite, ≤ 2 s on PostgreSQL; no page missing or sent twice.
The part between the \`bench:latency\` markers is rewritten by \`npm run bench:latency\` (one store: its part only).

${BEGIN}
${END}
`;

function writeDoc(runs: LatencyRun[]): void {
  let doc = readFileSync(DOC, 'utf8');
  if (!doc.includes(BEGIN) || !doc.includes(END)) {
    // New section, before the hand-written notes on how the benchmark works (or at the end).
    const at = doc.indexOf('\n## How the benchmark works');
    doc = at < 0 ? `${doc.trimEnd()}\n\n${SECTION}` : `${doc.slice(0, at + 1)}${SECTION}\n${doc.slice(at + 1)}`;
  }
  const i = doc.indexOf(BEGIN);
  const j = doc.indexOf(END);
  if (i < 0 || j < i) throw new Error(`${DOC}: ${BEGIN} must come before ${END}`);
  let block = doc.slice(i + BEGIN.length, j);
  for (const kind of ['sqlite', 'postgres'] as const) {
    const [b, e] = storeMarkers(kind);
    if (!block.includes(b)) block = `${block.trimEnd()}\n\n### ${storeTitle(kind)}\n\n${b}\n(not run yet)\n${e}\n`;
  }
  for (const run of runs) {
    const [b, e] = storeMarkers(run.kind);
    const bi = block.indexOf(b);
    const ei = block.indexOf(e);
    block = `${block.slice(0, bi + b.length)}\n${storeSection(run)}\n${block.slice(ei)}`;
  }
  doc = `${doc.slice(0, i + BEGIN.length)}${block.startsWith('\n') ? '' : '\n'}${block.trimEnd()}\n${doc.slice(j)}`;
  writeFileSync(DOC, doc);
  log(`wrote ${path.relative(ROOT, DOC)}`);
}

// ---------------------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const opts = readOptions(process.argv.slice(2));
  if (!opts.smtpGreetingDelay) greetAtOnce();
  if (!existsSync(DOC) && opts.writeDocs) throw new Error(`${DOC} is missing`);
  const info = await machine();
  log(`commit ${info.revision}; ${info.cpus} CPUs (${info.cpuModel}), ${info.memoryGiB.toFixed(1)} GiB, Node ${info.node}, SQLite ${info.sqlite}, PostgreSQL ${info.postgres}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const runs: LatencyRun[] = [];
  let failed = false;
  const plans = opts.rates.length === 0 ? [opts] : opts.rates.map((rate) => ({ ...opts, rate, alerts: rate * opts.seconds }));
  for (const kind of opts.stores) {
    for (const plan of plans) {
      if (isInterrupted()) break;
      try {
        const run = await benchStore(kind, plan, info);
        runs.push(run);
        process.stdout.write(`\n### ${storeTitle(kind)}${opts.rates.length > 0 ? `, ${fmt(plan.rate)} alerts/s` : ''}\n\n${storeSection(run)}\n`);
      } catch (err) {
        failed = true;
        process.stderr.write(`bench: ${kind} at ${plan.rate}/s failed: ${(err as Error).stack ?? String(err)}\n`);
      }
    }
  }
  await releaseAll();
  if (isInterrupted()) return;
  if (opts.rates.length > 0) process.stdout.write(`\n${kneeTable(runs, opts.seconds)}\n`);
  if (opts.writeDocs && runs.length > 0) writeDoc(runs);
  else if (runs.length > 0) log('partial or experimental run: docs/benchmarks.md left unchanged (pass --write-docs to write it)');
  if (failed) process.exitCode = 1;
}

main().catch(async (err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
  await releaseAll();
  process.exitCode = 1;
});
