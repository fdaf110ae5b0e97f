/**
 * AlertFlow against Prometheus Alertmanager, side by side: `npm run bench:vs-alertmanager [-- options]`.
 *
 * Starts Debian's `prometheus-alertmanager` (in memory, gossip off) and AlertFlow (a fresh SQLite or PostgreSQL
 * store, rate limits lifted) on loopback and drives them in turn with wrk (a Lua script makes every request's
 * fingerprint unique where needed), the same load and the same alert on both sides:
 *   new   — one new alert per request (AlertFlow's standard payload; Alertmanager's POST /api/v2/alerts with one alert)
 *   dup   — the same alert every time
 *   batch — 100 new alerts per request (Alertmanager's own webhook body through the `alertmanager` preset;
 *           Alertmanager's POST /api/v2/alerts with the same 100 alerts)
 * Each scenario runs `--rounds` times, alternating which side goes first, and the table gives the mean of the
 * rounds, p99, peak RSS and AlertFlow ÷ Alertmanager. Ratios measured in one run are what compare across machines.
 * In the same rounds (once per run, with the first store) the two floors of bench/floors.ts take AlertFlow's
 * requests: a bare `node:http` server that parses the JSON body and a bare Fastify route with the ingest route's
 * schema; the table gives each floor ÷ Alertmanager and AlertFlow ÷ the Fastify floor (how close to the limit).
 *
 * Options: --store sqlite|postgres|both  --scenarios new,dup,batch  --duration 10  --rounds 2  --connections 50
 * --threads 2  --cpu-prof DIR (profile AlertFlow; written at its shutdown)  --alertmanager PATH  --server-env NAME=value…
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import {
  api, childEnv, cliJson, execFileP, freshStore, HOST, isInterrupted, log, machine, onInterrupt, releaseAll, rssSampler, SERVER_NODE_FLAGS,
  startServer, stopServer, hold, wholeNumber, type StoreKind } from './support.ts';

type Scenario = 'new' | 'dup' | 'batch';
const SCENARIOS: readonly Scenario[] = ['new', 'dup', 'batch'];
const BATCH = 100;
const LABELS: Record<Scenario, string> = { new: 'new alerts', dup: 'duplicates', batch: `${BATCH}-alert batches` };

interface Options {
  stores: StoreKind[];
  scenarios: Scenario[];
  duration: number;
  rounds: number;
  connections: number;
  threads: number;
  cpuProfDir: string | undefined;
  alertmanager: string;
  /** Extra environment for AlertFlow (e.g. INGEST_WRITER_THREAD=true). */
  serverEnv: Record<string, string>;
}

function usage(message: string): never {
  process.stderr.write(`bench: ${message}\nUsage: npm run bench:vs-alertmanager -- [--store sqlite|postgres|both] [--scenarios new,dup,batch] [--duration 10] [--rounds 2] [--connections 50] [--threads 2] [--cpu-prof DIR] [--alertmanager PATH] [--server-env NAME=value]...\n`);
  process.exit(2);
}

function readOptions(argv: string[]): Options {
  let v;
  try {
    v = parseArgs({
      args: argv, strict: true, allowPositionals: false,
      options: {
        store: { type: 'string' }, scenarios: { type: 'string' }, duration: { type: 'string' }, rounds: { type: 'string' },
        connections: { type: 'string' }, threads: { type: 'string' }, 'cpu-prof': { type: 'string' }, alertmanager: { type: 'string' },
        'server-env': { type: 'string', multiple: true },
      },
    }).values;
  } catch (err) {
    usage((err as Error).message);
  }
  const store = v.store ?? 'both';
  if (!['sqlite', 'postgres', 'both'].includes(store)) usage(`--store must be sqlite, postgres or both, got "${store}"`);
  const scenarios = (v.scenarios ?? SCENARIOS.join(',')).split(',').map((s) => s.trim()).filter(Boolean);
  for (const s of scenarios) if (!SCENARIOS.includes(s as Scenario)) usage(`unknown scenario "${s}"`);
  const n = (raw: string | undefined, name: string, fallback: number) => wholeNumber(raw, name, fallback, usage);
  return {
    stores: store === 'both' ? ['sqlite', 'postgres'] : [store as StoreKind],
    scenarios: scenarios as Scenario[],
    duration: n(v.duration, 'duration', 10),
    rounds: n(v.rounds, 'rounds', 2),
    connections: n(v.connections, 'connections', 50),
    threads: n(v.threads, 'threads', 2),
    cpuProfDir: v['cpu-prof'] === undefined ? undefined : path.resolve(v['cpu-prof']),
    alertmanager: v.alertmanager ?? '/usr/bin/prometheus-alertmanager',
    serverEnv: Object.fromEntries((v['server-env'] ?? []).map((kv) => {
      const i = kv.indexOf('=');
      if (i < 1) usage(`--server-env takes NAME=value, got "${kv}"`);
      return [kv.slice(0, i), kv.slice(i + 1)];
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// The alert both sides receive: the same labels, annotations and text (~520 bytes as AlertFlow's payload).

const FP = '__FP__';
const labels = (fp: string) => ({ alertname: 'HighLatency', instance: 'web-1:9100', job: 'checkout', env: 'production', severity: 'critical', fp });
const annotations = {
  summary: 'p99 latency above 500 ms on web-1',
  description: 'The checkout service answered slower than its objective for five minutes',
  runbook_url: 'https://runbooks.example.com/latency',
};
const startsAt = '2026-11-21T09:58:00.000Z';
const generatorURL = 'http://prometheus.example.com:9090/graph';

const afAlert = (fp: string) => ({
  title: 'HighLatency on web-1:9100', severity: 'critical', source: 'prometheus', fingerprint: fp,
  description: annotations.description, labels: labels(fp), annotations,
});
const amAlert = (fp: string) => ({ labels: labels(fp), annotations, startsAt, generatorURL });
const webhookAlert = (fp: string) => ({ status: 'firing', labels: labels(fp), annotations, startsAt, endsAt: '0001-01-01T00:00:00Z', generatorURL, fingerprint: fp });
const indexed = (i: number) => `${FP}-${i}`;

/** The JSON body of one request of `scenario` for each side, with FP where the fingerprint goes. */
function bodies(scenario: Scenario): { af: string; am: string } {
  if (scenario !== 'batch') return { af: JSON.stringify(afAlert(FP)), am: JSON.stringify([amAlert(FP)]) };
  const idx = Array.from({ length: BATCH }, (_, i) => indexed(i));
  return {
    af: JSON.stringify({
      version: '4', groupKey: '{}:{alertname="HighLatency"}', truncatedAlerts: 0, status: 'firing', receiver: 'alertflow',
      groupLabels: { alertname: 'HighLatency' }, commonLabels: { alertname: 'HighLatency', job: 'checkout' }, commonAnnotations: {},
      externalURL: 'http://alertmanager.example.com:9093', alerts: idx.map(webhookAlert),
    }),
    am: JSON.stringify(idx.map(amAlert)),
  };
}

/**
 * A wrk script: every request posts `body`, FP replaced by a fingerprint unique to this run, thread and
 * request (or by one fixed value for duplicates).
 */
function wrkScript(dir: string, name: string, urlPath: string, body: string, unique: boolean, runTag: string): string {
  const [head, ...rest] = body.split(FP);
  const parts = [head, ...rest].map((p) => `[==[${p}]==]`);
  const file = path.join(dir, `${name}.lua`);
  writeFileSync(file, `
local parts = { ${parts.join(', ')} }
local threads = 0
local n = 0
-- setup runs in the main Lua state: each thread gets its own number as the global tid.
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
wrk.method = "POST"
wrk.path = [==[${urlPath}]==]
wrk.headers["Content-Type"] = "application/json"
request = function()
  n = n + 1
  local fp = ${unique ? `"${runTag}-" .. tid .. "-" .. n` : `"${runTag}-dup"`}
  return wrk.format(nil, nil, nil, table.concat(parts, fp))
end
`);
  return file;
}

// ---------------------------------------------------------------------------------------------------------
// Load

interface Run {
  reqPerSec: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
  rss: number;
}

const ms = (value: string, unit: string): number => Number(value) * ({ us: 0.001, ms: 1, s: 1000, m: 60_000 }[unit] ?? NaN);

let currentWrk: ReturnType<typeof spawn> | undefined;
onInterrupt(() => currentWrk?.kill('SIGINT'));

async function wrk(opts: Options, port: number, pid: number, script: string): Promise<Run> {
  const rss = rssSampler(pid);
  const child = spawn('wrk', [`-t${opts.threads}`, `-c${opts.connections}`, `-d${opts.duration}s`, '--timeout', '30s', '--latency', '-s', script, `http://${HOST}:${port}`],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  currentWrk = child;
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  currentWrk = undefined;
  const peak = rss.stop();
  if (code !== 0) throw new Error(`wrk exited ${code}:\n${out}`);
  const p99 = /^\s+99%\s+([\d.]+)(us|ms|s|m)\s*$/m.exec(out);
  const requests = /(\d+) requests in/.exec(out);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!p99 || !requests || !rps) throw new Error(`unreadable wrk output:\n${out}`);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    reqPerSec: Number(rps[1]),
    p99: ms(p99[1] as string, p99[2] as string),
    requests: Number(requests[1]),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: errors ? errors.slice(1).reduce((s, x) => s + Number(x), 0) : 0,
    rss: peak,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Alertmanager

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, HOST, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

async function startAlertmanager(opts: Options, dir: string): Promise<{ pid: number; port: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const config = path.join(dir, 'alertmanager.yml');
  // A route to a receiver without integrations: alerts are taken, grouped and kept, nothing is sent.
  writeFileSync(config, 'route:\n  receiver: blackhole\nreceivers:\n  - name: blackhole\n');
  const child = spawn(opts.alertmanager, [
    `--config.file=${config}`, `--storage.path=${path.join(dir, 'data')}`, `--web.listen-address=${HOST}:${port}`, '--cluster.listen-address=', '--log.level=warn',
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const stop = hold(`alertmanager ${child.pid}`, () => stopServer(child).then(() => undefined));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    try {
      if ((await fetch(`http://${HOST}:${port}/-/ready`)).ok) return { pid: child.pid as number, port, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`alertmanager did not become ready:\n${stderr}`);
}

// ---------------------------------------------------------------------------------------------------------
// The floors (bench/floors.ts)

type Floor = 'http' | 'fastify';
const FLOORS: readonly Floor[] = ['http', 'fastify'];

async function startFloor(kind: Floor): Promise<{ pid: number; port: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [path.join(import.meta.dirname, 'floors.ts'), kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = hold(`${kind} floor ${child.pid}`, () => stopServer(child).then(() => undefined));
  const line = await new Promise<string | undefined>((resolve) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (l) => { lines.close(); resolve(l); });
    child.once('exit', () => resolve(undefined));
  });
  const port = Number(line);
  if (!Number.isInteger(port) || port <= 0) {
    await stop();
    throw new Error(`the ${kind} floor did not start (said ${JSON.stringify(line)})`);
  }
  return { pid: child.pid as number, port, stop };
}

/** Floor runs per scenario, measured once per run (they do not depend on the store). */
const floorRuns = new Map<Scenario, Record<Floor, Run[]>>();

// ---------------------------------------------------------------------------------------------------------

interface Row {
  scenario: Scenario;
  af: Run[];
  am: Run[];
  floors: Record<Floor, Run[]> | undefined;
  stored: string;
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);
const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

async function benchStore(kind: StoreKind, opts: Options): Promise<Row[]> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-vs-am-'));
  hold(`temp dir ${dir}`, async () => (await import('node:fs')).rmSync(dir, { recursive: true, force: true }));
  const store = await freshStore(kind);
  const env = { ...childEnv(store.databaseUrl), ...opts.serverEnv };
  const org = await cliJson<{ org: { id: string }; apiKey: string }>(['org', 'create', '--name', 'Bench', '--json'], env);
  const flags = [...SERVER_NODE_FLAGS, ...(opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [])];
  const server = await startServer(env, flags);
  const am = await startAlertmanager(opts, dir);
  const measureFloors = floorRuns.size === 0;
  const floors = measureFloors ? await Promise.all(FLOORS.map(startFloor)) : [];
  log(`${kind}: AlertFlow pid ${server.pid} port ${server.port}; Alertmanager pid ${am.pid} port ${am.port}${floors.map((f, i) => `; ${FLOORS[i]} floor pid ${f.pid} port ${f.port}`).join('')}`);
  const rows: Row[] = [];
  try {
    const standard = await api<{ data: { token: string } }>(server, 'POST', '/api/v1/integrations', org.apiKey, { name: 'Bench' });
    const preset = await api<{ data: { token: string } }>(server, 'POST', '/api/v1/integrations', org.apiKey, { name: 'Bench AM', preset: 'alertmanager' });
    const total = async () => (await api<{ meta: { total: number } }>(server, 'GET', '/api/v1/alerts?limit=1', org.apiKey)).meta.total;
    for (const scenario of opts.scenarios) {
      const b = bodies(scenario);
      const token = scenario === 'batch' ? preset.data.token : standard.data.token;
      if (measureFloors) floorRuns.set(scenario, { http: [], fastify: [] });
      const row: Row = { scenario, af: [], am: [], floors: floorRuns.get(scenario), stored: '' };
      let answered = 0;
      let sent = 0;
      const before = await total();
      for (let round = 0; round < opts.rounds && !isInterrupted(); round++) {
        const tag = `${scenario}-${randomBytes(3).toString('hex')}`;
        const runAf = async () => {
          const r = await wrk(opts, server.port, server.pid, wrkScript(dir, `af-${tag}`, `/api/inbound/webhook/${token}`, b.af, scenario !== 'dup', tag));
          row.af.push(r);
          answered += r.requests - r.non2xx;
          sent += r.requests;
        };
        const runAm = async () => {
          row.am.push(await wrk(opts, am.port, am.pid, wrkScript(dir, `am-${tag}`, '/api/v2/alerts', b.am, scenario !== 'dup', tag)));
        };
        const runFloors = async () => {
          for (const [i, f] of floors.entries()) {
            const floor = FLOORS[i] as Floor;
            row.floors?.[floor].push(await wrk(opts, f.port, f.pid, wrkScript(dir, `${floor}-${tag}`, `/api/inbound/webhook/${token}`, b.af, scenario !== 'dup', tag)));
          }
        };
        log(`${kind}: ${LABELS[scenario]}, round ${round + 1}/${opts.rounds}`);
        // Alternate who goes first, so neither always runs on a machine the other just warmed or heated.
        if (round % 2 === 0) { await runAf(); await runAm(); await runFloors(); } else { await runFloors(); await runAm(); await runAf(); }
      }
      // Every 2xx is a stored alert (wrk's count includes requests cut off at the end, which may be stored too).
      const perRequest = scenario === 'batch' ? BATCH : 1;
      const stored = (await total()) - before;
      row.stored = scenario === 'dup'
        ? `${stored} alert(s) created (one fingerprint per round) for ${fmt(answered)} 2xx answers`
        : `${fmt(stored)} alerts stored for ${fmt(answered * perRequest)} in 2xx answers${stored >= answered * perRequest ? '' : ' — MISMATCH'}`;
      rows.push(row);
    }
  } finally {
    for (const f of floors) await f.stop();
    await am.stop();
    await stopServer(server.child);
    await server.release();
    await store.release();
  }
  return rows;
}

function table(kind: StoreKind, rows: Row[]): string {
  const lines = [
    `| ${kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | AlertFlow req/s | alerts/s | p99 ms | RSS MiB | Alertmanager req/s | alerts/s | p99 ms | RSS MiB | ratio (alerts/s) | RSS ratio | node:http floor ÷ AM | Fastify floor ÷ AM | AlertFlow ÷ Fastify floor | non-2xx / errors |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const per = r.scenario === 'batch' ? BATCH : 1;
    const side = (runs: Run[]) => {
      const rps = mean(runs.map((x) => x.reqPerSec));
      return { rps, aps: rps * per, p99: Math.max(...runs.map((x) => x.p99)), rss: Math.max(...runs.map((x) => x.rss)), bad: runs.reduce((s, x) => s + x.non2xx + x.errors, 0) };
    };
    const a = side(r.af);
    const m = side(r.am);
    const h = r.floors?.http.length ? side(r.floors.http) : undefined;
    const f = r.floors?.fastify.length ? side(r.floors.fastify) : undefined;
    const ratio = (x: number | undefined, y: number) => (x === undefined ? '–' : `${(x / y).toFixed(2)}×`);
    lines.push(`| ${LABELS[r.scenario]} | ${fmt(a.rps)} | ${fmt(a.aps)} | ${fmt(a.p99, 1)} | ${fmt(a.rss)} | ${fmt(m.rps)} | ${fmt(m.aps)} | ${fmt(m.p99, 1)} | ${fmt(m.rss)} | **${(a.aps / m.aps).toFixed(2)}×** | ${(a.rss / m.rss).toFixed(2)} | ${ratio(h?.aps, m.aps)} | ${ratio(f?.aps, m.aps)} | ${f ? ratio(a.aps, f.aps) : '–'} | ${a.bad} / ${m.bad} |`);
  }
  const floorsOf = (r: Row) => (r.floors ? `, node:http floor ${r.floors.http.map((x) => fmt(x.reqPerSec)).join(', ')} req/s, Fastify floor ${r.floors.fastify.map((x) => fmt(x.reqPerSec)).join(', ')} req/s` : '');
  return [...lines, '', ...rows.map((r) => `- ${LABELS[r.scenario]}: ${r.stored}; per round AlertFlow ${r.af.map((x) => fmt(x.reqPerSec)).join(', ')} req/s, Alertmanager ${r.am.map((x) => fmt(x.reqPerSec)).join(', ')} req/s${floorsOf(r)}.`)].join('\n');
}

async function main(): Promise<void> {
  const opts = readOptions(process.argv.slice(2));
  await execFileP('wrk', ['--version']).catch((err: { stdout?: string }) => {
    if (!err.stdout?.includes('wrk')) usage('wrk is not installed (apt-get install wrk)');
  });
  const info = await machine();
  log(`commit ${info.revision}; ${info.cpus} CPUs (${info.cpuModel}); load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  process.stdout.write(`Run ${new Date().toISOString()} at commit ${info.revision}; ${info.cpus} CPUs (${info.cpuModel}); Node ${info.node}; SQLite ${info.sqlite}; PostgreSQL ${info.postgres}; `
    + `wrk -t${opts.threads} -c${opts.connections}, ${opts.duration} s × ${opts.rounds} rounds per side, alternated; load1 at start ${os.loadavg()[0]?.toFixed(2)}`
    + `${Object.keys(opts.serverEnv).length ? `; AlertFlow env ${Object.entries(opts.serverEnv).map(([k, x]) => `${k}=${x}`).join(' ')}` : ''}.\n`);
  for (const kind of opts.stores) {
    if (isInterrupted()) break;
    const rows = await benchStore(kind, opts);
    process.stdout.write(`\n${table(kind, rows)}\n`);
  }
  await releaseAll();
}

main().catch(async (err: unknown) => {
  process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
  await releaseAll();
  process.exitCode = 1;
});
