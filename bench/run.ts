/**
 * AlertFlow benchmark: `npm run bench [-- --store sqlite|postgres] [--duration N] [--connections N]`.
 *
 * For each store it starts a fresh server (`node bin/alertflow.js serve`) as a child process on 127.0.0.1
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
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { StoreConfig } from '../src/config.ts';
import { createStore } from '../src/db/database.ts';
import type { DB } from '../src/db/schema.ts';
import { newId } from '../src/lib/ids.ts';
import {
  api, childEnv, cliJson, cpuMeter, DOC, freshStore, HOST, isInterrupted, log, machine, onInterrupt, procStatus, releaseAll, ROOT, rssSampler,
  SERVER_NODE_FLAGS, startServer, stopServer, waitForQuiet, type CpuUse, type Machine, type Server, type StoreKind, wholeNumber } from './support.ts';

const FULL_DURATION = 15;
const WARMUP_SECONDS = 2;

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
// The load generator

let currentRun: ReturnType<typeof autocannon> | undefined;
// Ctrl-C stops a running autocannon at once (support.ts then releases everything and exits).
onInterrupt(() => currentRun?.stop());

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

async function benchStore(kind: StoreKind, opts: Options, info: Machine): Promise<StoreRun> {
  const startedAt = new Date().toISOString();
  const notes: string[] = [];
  const { databaseUrl, config: storeConfig, release: releaseStore } = await freshStore(kind);
  log(`${kind}: store ${databaseUrl}`);

  const env = childEnv(databaseUrl);
  const measurements: Measurement[] = [];
  let alertsInOrg: number | undefined;
  let shutdown = 'not started';
  try {
    const org = await cliJson<{ org: { id: string }; apiKey: string }>(['org', 'create', '--name', 'Bench', '--json'], env);
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

      if (want('new') && !isInterrupted()) {
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

      if (want('dup') && !isInterrupted()) {
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

      if (want('mapped') && !isInterrupted()) {
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
      if (listRuns.length > 0 && !isInterrupted()) {
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
          if (isInterrupted()) break;
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
    if (isInterrupted()) break;
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
  if (isInterrupted()) return;
  if (opts.writeDocs && runs.length > 0) writeDoc(runs, opts);
  else if (runs.length > 0) log('quick or partial run: docs/benchmarks.md left unchanged (pass --write-docs to write it)');
  if (failed) process.exitCode = 1;
}

main().catch(async (err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
  await releaseAll();
  process.exitCode = 1;
});
