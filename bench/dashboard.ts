/**
 * The dashboard's first load: `npm run bench:dashboard [-- --store sqlite|postgres] [--alerts 10000] [--runs 5] [--no-docs]`.
 *
 * For each store it starts a fresh server (a child process on 127.0.0.1, rate limits lifted, serving web/dist, which
 * must be built), creates an organization whose owner has a password (CLI), an integration (API key), and stores
 * `--alerts` open alerts through ingest (500 per payload, distinct titles). It signs in through
 * `POST /api/v1/auth/login` and gives the session cookie to Debian's Chromium (/usr/bin/chromium, headless).
 *
 * Each of `--runs` loads is cold: a new browser context (empty cache) opens `/alerts` and waits for the first row
 * of the table; the figure is `performance.now()` in the page at that moment, i.e. from the start of navigation
 * (HTML, JS, the session and the first page of alerts included). The JS the first load fetched is the set of
 * script responses Chromium received, each compressed with gzip (level 9) here, since the server sends them as is.
 * Beside it, the CPU time all Chromium processes used during the load (/proc ticks of the browser's process tree):
 * what the load itself costs, which tells a slow page from a machine whose cores are busy with other work. As a floor,
 * the same cold load of a page without script (`/healthz`) is timed too: what Chromium alone costs on this machine.
 *
 * BENCH_TRACE=1 also logs each load's resource timings (path, start, duration in ms), to see where the time goes.
 *
 * It prints a markdown table and, unless --no-docs, writes it into docs/benchmarks.md between
 * `<!-- bench:dashboard:begin -->` and `<!-- bench:dashboard:end -->`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import {
  api, childEnv, cliJson, DOC, freshStore, HOST, isInterrupted, log, machine, releaseAll, ROOT, procTicks, SERVER_NODE_FLAGS, signInSession, startServer,
  wholeNumber, writeDocSection, type StoreKind,
} from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
const BEGIN = '<!-- bench:dashboard:begin -->';
const END = '<!-- bench:dashboard:end -->';
const BATCH = 500;
const PASSWORD = 'bench dashboard password';
const TRACE = process.env.BENCH_TRACE === '1';
/** Linux's USER_HZ: /proc reports CPU time in these ticks. */
const CLOCK_TICKS = 100;

interface Options {
  stores: StoreKind[];
  alerts: number;
  runs: number;
  writeDocs: boolean;
}

function usage(message: string): never {
  process.stderr.write(`bench:dashboard: ${message}\nusage: npm run bench:dashboard [-- --store sqlite|postgres] [--alerts N] [--runs N] [--no-docs]\n`);
  process.exit(2);
}

function readOptions(argv: string[]): Options {
  const { values } = parseArgs({ args: argv, options: { store: { type: 'string' }, alerts: { type: 'string' }, runs: { type: 'string' }, 'no-docs': { type: 'boolean' } } });
  if (values.store !== undefined && values.store !== 'sqlite' && values.store !== 'postgres') usage(`--store must be sqlite or postgres, got "${values.store}"`);
  return {
    stores: values.store ? [values.store as StoreKind] : ['sqlite', 'postgres'],
    alerts: wholeNumber(values.alerts, 'alerts', 10_000, usage),
    runs: wholeNumber(values.runs, 'runs', 5, usage),
    writeDocs: values['no-docs'] !== true,
  };
}

interface Result {
  kind: StoreKind;
  alerts: number;
  firstRowsMs: number[];
  /** CPU time all Chromium processes used from navigation to the first rows: what the load costs, whatever the machine's load. */
  cpuMs: number[];
  /** A page without script (`/healthz`), loaded the same way: Chromium's own cost on this machine. */
  floorMs: number[];
  floorCpuMs: number[];
  js: { files: number; raw: number; gzip: number };
}

/** CPU ticks of the browser process and all its descendants (renderers, GPU and network services). */
function chromiumTicks(root: number): number {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (p === root) return true;
    return false;
  };
  let ticks = 0;
  for (const pid of parent.keys()) if (inTree(pid)) ticks += procTicks(pid);
  return ticks;
}

/** The Chromium browser process: the child of this process whose command line is chromium's (the server is another child). */
function browserProcessPid(): number {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${name}/cmdline`, 'utf8').includes('chromium')) return Number(name);
    } catch {
      // exited meanwhile
    }
  }
  throw new Error('the Chromium process was not found among this process\'s children');
}

const ticksToMs = (ticks: number) => (ticks * 1000) / CLOCK_TICKS;

async function benchStore(kind: StoreKind, opts: Options, browser: Browser, browserPid: number): Promise<Result> {
  const store = await freshStore(kind);
  const env = childEnv(store.databaseUrl);
  const created = await cliJson<{ org: { id: string }; apiKey: string }>(
    ['org', 'create', '--name', 'Bench', '--owner-email', 'owner@bench.test', '--owner-password', PASSWORD, '--json'], env);
  const server = await startServer(env, SERVER_NODE_FLAGS);
  const base = `http://${HOST}:${server.port}`;
  const integration = await api<{ data: { token: string } }>(server, 'POST', '/api/v1/integrations', created.apiKey,
    { name: 'bench', mapping: { itemsPath: 'alerts' } });
  log(`${kind}: storing ${opts.alerts} alerts`);
  for (let i = 0; i < opts.alerts; i += BATCH) {
    const alerts = Array.from({ length: Math.min(BATCH, opts.alerts - i) }, (_, j) => ({
      title: `Bench alert ${i + j}`, severity: (['critical', 'high', 'medium', 'low', 'info'] as const)[(i + j) % 5], source: `host-${(i + j) % 97}`,
      labels: { env: 'prod', n: String(i + j) },
    }));
    await api(server, 'POST', `/api/inbound/webhook/${integration.data.token}`, '', { alerts });
  }
  const session = await signInSession(base, 'owner@bench.test', PASSWORD);

  // The floor: the same cold load of a page with no script (the JSON of /healthz), i.e. what Chromium itself costs here.
  const floorMs: number[] = [];
  const floorCpuMs: number[] = [];
  for (let run = 0; run < opts.runs && !isInterrupted(); run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const cpuBefore = chromiumTicks(browserPid);
    await page.goto(`${base}/healthz`, { waitUntil: 'commit' });
    await page.locator('body').first().waitFor();
    floorMs.push(await page.evaluate('performance.now()') as number);
    floorCpuMs.push(ticksToMs(chromiumTicks(browserPid) - cpuBefore));
    await context.close();
  }

  const firstRowsMs: number[] = [];
  const cpuMs: number[] = [];
  let js = { files: 0, raw: 0, gzip: 0 };
  for (let run = 0; run < opts.runs && !isInterrupted(); run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addCookies([{ name: 'af_session', value: session, url: base }]);
    const page = await context.newPage();
    const cpuBefore = chromiumTicks(browserPid);
    const scripts: Array<Promise<Buffer>> = [];
    page.on('response', (r) => { if (r.request().resourceType() === 'script') scripts.push(r.body()); });
    await page.goto(`${base}/alerts`, { waitUntil: 'commit' });
    await page.locator('tbody tr').first().waitFor({ timeout: 30_000 });
    firstRowsMs.push(await page.evaluate('performance.now()') as number);
    cpuMs.push(ticksToMs(chromiumTicks(browserPid) - cpuBefore));
    if (TRACE) log(String(await page.evaluate(`JSON.stringify(performance.getEntriesByType('resource')
      .map((e) => [e.name.replace(/^http:..[^/]+/, ''), Math.round(e.startTime), Math.round(e.duration)]))`)));
    if (run === 0) {
      const bodies = await Promise.all(scripts);
      js = { files: bodies.length, raw: bodies.reduce((n, b) => n + b.length, 0), gzip: bodies.reduce((n, b) => n + gzipSync(b, { level: 9 }).length, 0) };
    }
    await context.close();
  }
  await server.release();
  await store.release();
  return { kind, alerts: opts.alerts, firstRowsMs, cpuMs, floorMs, floorCpuMs, js };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

function table(results: Result[], header: string): string {
  const rows = results.map((r) => `| ${r.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} | ${r.alerts.toLocaleString('en')} | ${Math.round(median(r.firstRowsMs))} ms `
    + `| ${Math.round(Math.max(...r.firstRowsMs))} ms | ${Math.round(median(r.cpuMs))} ms | ${Math.round(median(r.floorMs))} ms, ${Math.round(median(r.floorCpuMs))} ms CPU | ${r.firstRowsMs.length} | ${r.js.files} | ${kb(r.js.gzip)} (${kb(r.js.raw)} raw) |`);
  return [header, '',
    '| store | open alerts | first rows (median) | first rows (worst) | Chromium CPU per load (median) | floor: a page without script (median wall, CPU) | cold loads | JS files on first load | first-load JS, gzip |',
    '|---|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

async function main(): Promise<void> {
  const opts = readOptions(process.argv.slice(2));
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package`);
  if (!existsSync(path.join(ROOT, 'web/dist/index.html'))) throw new Error('web/dist is not built: npm run build --prefix web');
  const info = await machine();
  const header = `Run of ${new Date().toISOString().slice(0, 10)} at commit ${info.revision}; ${info.cpus} CPUs (${info.cpuModel}), Node ${info.node}, `
    + `Chromium headless; load average at start ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}. Target: first rows ≤ 1 s, first-load JS ≤ 250 KB gzip.`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
  });
  const browserPid = browserProcessPid();
  const results: Result[] = [];
  try {
    for (const kind of opts.stores) {
      if (isInterrupted()) break;
      results.push(await benchStore(kind, opts, browser, browserPid));
    }
  } finally {
    await browser.close();
    await releaseAll();
  }
  const section = table(results, header);
  process.stdout.write(`${section}\n`);
  if (opts.writeDocs && results.length > 0) writeDocSection(BEGIN, END, section, '## Dashboard: first load', '## How the benchmark works');
}

main().catch(async (err: unknown) => {
  process.stderr.write(`bench:dashboard: ${(err as Error).stack ?? String(err)}\n`);
  await releaseAll();
  process.exitCode = 1;
});
