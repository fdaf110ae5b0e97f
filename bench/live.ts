/**
 * Live updates, ingest answer → row on an open page: `npm run bench:live [-- --store sqlite|postgres] [--alerts 100] [--rate 10] [--no-docs]`.
 *
 * SQLite: one server. PostgreSQL: two servers on one database, the page served by B and the alerts ingested
 * through A, so the figure includes the trip between instances (trigger row, NOTIFY, B's poller). Each server is a
 * child process on 127.0.0.1 with a fresh store (see support.ts); the organization's owner signs in through B and
 * Debian's Chromium (headless) opens `/alerts` with that session and waits for the stream to say "Live".
 *
 * Then `--alerts` alerts (distinct titles) are ingested at `--rate` per second, one request each. For each, the
 * time is taken when the ingest answer arrives here (Date.now()), and in the page when a link with its title
 * first appears in the document (a MutationObserver, Date.now(): same machine, same clock). The figure is the
 * difference: event relay, the page's throttled refetch (at most one per 300 ms), the list request and the render.
 * The load average is recorded at start and end: the machine is shared.
 *
 * It prints a markdown table and, unless --no-docs, writes it into docs/benchmarks.md between
 * `<!-- bench:live:begin -->` and `<!-- bench:live:end -->`.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { api, childEnv, cliJson, freshStore, HOST, isInterrupted, log, machine, releaseAll, ROOT, SERVER_NODE_FLAGS, signInSession, startServer, wholeNumber, writeDocSection, type StoreKind } from './support.ts';

const CHROMIUM = '/usr/bin/chromium';
const BEGIN = '<!-- bench:live:begin -->';
const END = '<!-- bench:live:end -->';
const PASSWORD = 'bench live password';
const TITLE = 'Live bench';
/** An alert not on the page this long after its answer counts as missed. */
const GIVE_UP_MS = 15_000;

interface Options {
  stores: StoreKind[];
  alerts: number;
  rate: number;
  writeDocs: boolean;
}

function usage(message: string): never {
  process.stderr.write(`bench:live: ${message}\nusage: npm run bench:live [-- --store sqlite|postgres] [--alerts N] [--rate N] [--no-docs]\n`);
  process.exit(2);
}

function readOptions(argv: string[]): Options {
  const { values } = parseArgs({ args: argv, options: { store: { type: 'string' }, alerts: { type: 'string' }, rate: { type: 'string' }, 'no-docs': { type: 'boolean' } } });
  if (values.store !== undefined && values.store !== 'sqlite' && values.store !== 'postgres') usage(`--store must be sqlite or postgres, got "${values.store}"`);
  return {
    stores: values.store ? [values.store as StoreKind] : ['sqlite', 'postgres'],
    alerts: wholeNumber(values.alerts, 'alerts', 100, usage),
    rate: wholeNumber(values.rate, 'rate', 10, usage),
    writeDocs: values['no-docs'] !== true,
  };
}

interface Result {
  kind: StoreKind;
  instances: number;
  latenciesMs: number[];
  missed: number;
  load: { start: number[]; end: number[] };
}

/** Records, in the page, when each bench alert's link first appears. */
const OBSERVER = `(() => {
  window.__seen = {};
  const scan = () => {
    for (const a of document.querySelectorAll('a')) {
      const m = /^${TITLE} (\\d+)$/.exec(a.textContent || '');
      if (m && !(m[1] in window.__seen)) window.__seen[m[1]] = Date.now();
    }
  };
  new MutationObserver(scan).observe(document.body, { subtree: true, childList: true, characterData: true });
  scan();
})()`;

async function benchStore(kind: StoreKind, opts: Options, browser: Browser): Promise<Result> {
  const store = await freshStore(kind);
  const env = childEnv(store.databaseUrl);
  const created = await cliJson<{ org: { id: string }; apiKey: string }>(
    ['org', 'create', '--name', 'Bench', '--owner-email', 'owner@bench.test', '--owner-password', PASSWORD, '--json'], env);
  const ingestServer = await startServer(env, SERVER_NODE_FLAGS);
  const pageServer = kind === 'postgres' ? await startServer(env, SERVER_NODE_FLAGS) : ingestServer;
  const pageBase = `http://${HOST}:${pageServer.port}`;
  const integration = await api<{ data: { token: string } }>(ingestServer, 'POST', '/api/v1/integrations', created.apiKey, { name: 'bench' });
  const session = await signInSession(pageBase, 'owner@bench.test', PASSWORD);

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies([{ name: 'af_session', value: session, url: pageBase }]);
  const page = await context.newPage();
  await page.goto(`${pageBase}/alerts`);
  await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 30_000 });
  await page.evaluate(OBSERVER);

  const load = { start: os.loadavg(), end: [] as number[] };
  log(`${kind}: ${opts.alerts} alerts at ${opts.rate}/s, load average ${load.start.map((x) => x.toFixed(2)).join(' ')}`);
  const answered: number[] = [];
  const ingestUrl = `http://${HOST}:${ingestServer.port}/api/inbound/webhook/${integration.data.token}`;
  const sends: Array<Promise<void>> = [];
  const start = Date.now();
  for (let i = 0; i < opts.alerts && !isInterrupted(); i++) {
    const due = start + (i * 1000) / opts.rate;
    if (due > Date.now()) await new Promise((r) => setTimeout(r, due - Date.now()));
    sends.push(fetch(ingestUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `${TITLE} ${i}`, severity: 'high', fingerprint: `live-bench-${i}` }) })
      .then(async (r) => {
        await r.text();
        if (r.status !== 200) throw new Error(`ingest answered ${r.status}`);
        answered[i] = Date.now();
      }));
  }
  await Promise.all(sends);
  const deadline = Date.now() + GIVE_UP_MS;
  let seen: Record<string, number> = {};
  while (Date.now() < deadline) {
    seen = await page.evaluate('window.__seen') as Record<string, number>;
    if (Object.keys(seen).length >= answered.length) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  load.end = os.loadavg();
  const latenciesMs = answered.flatMap((at, i) => (seen[i] === undefined ? [] : [Math.max(0, (seen[i] as number) - at)]));
  await context.close();
  await pageServer.release();
  if (pageServer !== ingestServer) await ingestServer.release();
  await store.release();
  return { kind, instances: pageServer === ingestServer ? 1 : 2, latenciesMs, missed: answered.length - latenciesMs.length, load };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] as number);
};
const loads = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');

function table(results: Result[], header: string, opts: Options): string {
  const rows = results.map((r) => `| ${r.kind === 'sqlite' ? 'SQLite, one instance' : 'PostgreSQL, ingest through A, page on B'} | ${r.latenciesMs.length} of ${r.latenciesMs.length + r.missed} `
    + `| ${Math.round(pct(r.latenciesMs, 50))} ms | ${Math.round(pct(r.latenciesMs, 99))} ms | ${Math.round(Math.max(...r.latenciesMs))} ms | ${pct(r.latenciesMs, 99) <= 2000 && r.missed === 0 ? 'met' : '**NOT met**'} `
    + `| ${loads(r.load.start)} → ${loads(r.load.end)} |`);
  return [header, '',
    `| store | alerts seen (of sent at ${opts.rate}/s) | p50 | p99 | worst | p99 ≤ 2 s | load average (1, 5, 15 min) start → end |`,
    '|---|---|---:|---:|---:|---|---|', ...rows].join('\n');
}

async function main(): Promise<void> {
  const opts = readOptions(process.argv.slice(2));
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium package`);
  if (!existsSync(path.join(ROOT, 'web/dist/index.html'))) throw new Error('web/dist is not built: npm run build --prefix web');
  const info = await machine();
  const header = `Run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC at commit ${info.revision}; ${info.cpus} CPUs (${info.cpuModel}), Node ${info.node}, `
    + `Chromium headless; ${opts.alerts} alerts at ${opts.rate}/s, one request each. Target: p99 ≤ 2 s.`;
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
  const results: Result[] = [];
  try {
    for (const kind of opts.stores) {
      if (isInterrupted()) break;
      results.push(await benchStore(kind, opts, browser));
    }
  } finally {
    await browser.close();
    await releaseAll();
  }
  const section = table(results, header, opts);
  process.stdout.write(`${section}\n`);
  if (opts.writeDocs && results.length > 0) writeDocSection(BEGIN, END, section, '## Live updates: ingest answer → row on an open page (issue 9, item 1)');
}

main().catch(async (err: unknown) => {
  process.stderr.write(`bench:live: ${(err as Error).stack ?? String(err)}\n`);
  await releaseAll();
  process.exitCode = 1;
});
