/**
 * Analytics query times on a large store (docs/benchmarks.md#analytics-on-1000000-alerts-issue-22): 1,000,000 alerts and 50,000 incidents
 * over the last 365 days of one organization, stored as rows and counted in the rollups as the alert writer counts
 * them (src/modules/analytics/analytics-fns.ts); then each query of the Analytics page, the client board and a client
 * report, asked through a real `alertflow serve` over HTTP, several times each: p50 and p95 per query and over all.
 * A first page of GET /alerts is timed in the same run, as the reference.
 *
 *   npm run bench:analytics -- [--store sqlite|postgres] [--alerts 1000000] [--incidents 50000] [--rounds 10]
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createStore, type Store } from '../src/db/database.ts';
import { emptyDeltas, rollup, type AlertDims, type Fact } from '../src/modules/analytics/analytics-fns.ts';
import { analyticsRepo } from '../src/modules/analytics/analytics-repo.ts';
import { api, childEnv, cliJson, freshStore, log, machine, releaseAll, SERVER_NODE_FLAGS, startServer, wholeNumber, type StoreKind } from './support.ts';

const { values: args } = parseArgs({ options: { store: { type: 'string' }, alerts: { type: 'string' }, incidents: { type: 'string' }, rounds: { type: 'string' } } });
const usage = (message: string): never => {
  process.stderr.write(`${message}\nusage: npm run bench:analytics -- [--store sqlite|postgres] [--alerts N] [--incidents N] [--rounds N]\n`);
  process.exit(2);
};
const kinds: StoreKind[] = args.store === undefined ? ['sqlite', 'postgres'] : args.store === 'sqlite' || args.store === 'postgres' ? [args.store] : usage('--store is sqlite or postgres');
const ALERTS = wholeNumber(args.alerts ?? process.env.BENCH_ALERTS, 'alerts', 1_000_000, usage);
const INCIDENTS = wholeNumber(args.incidents ?? process.env.BENCH_INCIDENTS, 'incidents', 50_000, usage);
const ROUNDS = wholeNumber(args.rounds, 'rounds', 10, usage);

const DAY = 86_400_000;
const ZONE = 'Europe/Berlin';
const CLIENTS = 40;
const INTEGRATIONS = 10;
const SERVICES = 60;
const FINGERPRINTS = 5_000;
const PEOPLE = 30;
/** The newest alerts and incidents are open. */
const OPEN_ALERTS = 300;
const OPEN_INCIDENTS = 20;
const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'];
/** Rows per INSERT while seeding. */
const CHUNK = 500;

/** A small deterministic generator, so that both stores get the same data. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
/** Skewed towards 0 like real noise: a few alerts make most of it. */
const skewed = (r: () => number, n: number) => Math.floor(n * r() ** 3);

export async function seed(store: Store, orgId: string, now: number): Promise<void> {
  const r = random(42);
  const repo = analyticsRepo(store);
  const settings = () => ({ zone: ZONE, labels: ['service'] });
  const clients = Array.from({ length: CLIENTS }, (_, i) => ({ id: `cli_bench_${i}`, org_id: orgId, name: `Client ${i}`, slug: `client-${i}`, contact_email: null, notes: null, created_at: now, updated_at: now }));
  await store.db.insertInto('clients').values(clients).execute();
  const integrations = Array.from({ length: INTEGRATIONS }, (_, i) => ({
    id: `int_bench_${i}`, org_id: orgId, name: `Integration ${i}`, preset: 'standard', enabled: 1, token: `tok_bench_${i}_${orgId}`, mapping: null, client_id: null,
    accepted_count: 0, rejected_count: 0, last_alert_at: null, last_rejected_at: null, created_at: now, updated_at: now,
    routing_key: `rk-${i}`, routing_key_digest: `rk-${i}-${orgId}`, genie_key: `gk-${i}`, genie_key_digest: `gk-${i}-${orgId}`,
  }));
  // Cast: the seed names the columns it needs (unique ones unique); the others have defaults or are nullable.
  await store.db.insertInto('integrations').values(integrations as never).execute();
  const people = Array.from({ length: PEOPLE }, (_, i) => ({ id: `usr_bench_${i}`, org_id: orgId, email: `p${i}@bench.test`, name: `Person ${i}`, role: 'member', password_hash: null, created_at: now, updated_at: now }));
  await store.db.insertInto('users').values(people).execute();

  const start = now - 365 * DAY;
  const dimsOf = (fp: number): AlertDims => ({
    orgId, severity: SEVERITIES[fp % 5] as string, clientId: `cli_bench_${fp % CLIENTS}`, integrationId: `int_bench_${fp % INTEGRATIONS}`,
    fingerprint: `fp-${fp}`, title: `Alert ${fp} on host-${fp % 97}`, labels: { service: `svc-${fp % SERVICES}` },
  });
  let rows: Array<Record<string, unknown>> = [];
  let deltas = emptyDeltas();
  let facts: Fact[] = [];
  const flush = async (force: boolean) => {
    if (rows.length >= CHUNK || (force && rows.length > 0)) {
      await store.db.insertInto('alerts').values(rows as never).execute();
      rows = [];
    }
    if (facts.length >= 20_000 || force) {
      rollup(facts, settings, deltas);
      facts = [];
    }
    if (deltas.hourly.size >= 50_000 || force) {
      await store.db.transaction().execute((trx) => repo.apply(trx, deltas));
      deltas = emptyDeltas();
    }
  };
  for (let i = 0; i < ALERTS; i++) {
    const at = start + Math.floor((i / ALERTS) * 365 * DAY);
    // The newest alerts are still open, as on a live store (one open alert per fingerprint: theirs are their own).
    const open = i >= ALERTS - OPEN_ALERTS;
    const fp = open ? FINGERPRINTS + i : skewed(r, FINGERPRINTS);
    const d = dimsOf(fp);
    const repeats = r() < 0.3 ? 1 + Math.floor(r() * 20) : 0;
    const resolvedAfter = r() < 0.1 ? Math.floor(r() * 59_000) : Math.floor(r() * 4 * 3_600_000);
    rows.push({
      id: `alt_bench_${i}`, org_id: orgId, integration_id: d.integrationId, client_id: d.clientId, incident_id: null, fingerprint: d.fingerprint, title: d.title,
      severity: d.severity, status: open ? 'firing' : 'resolved', source: 'bench', description: null, labels: JSON.stringify(d.labels), annotations: '{}', payload: '{}',
      occurrences: 1 + repeats, last_seen_at: at, acknowledged_at: null, acknowledged_by_type: null, acknowledged_by_id: null,
      resolved_at: open ? null : at + resolvedAfter, resolved_by_type: open ? null : 'integration', resolved_by_id: open ? null : d.integrationId,
      suppression_id: null, created_at: at, updated_at: open ? at : at + resolvedAfter,
    });
    facts.push({ kind: 'alert_created', alert: d, at });
    if (repeats > 0) facts.push({ kind: 'alert_repeated', alert: d, at: at + 60_000, times: repeats });
    if (!open) facts.push({ kind: 'alert_resolved', alert: d, openedAt: at, at: at + resolvedAfter });
    if (i % 10 === 0) facts.push({ kind: 'page_sent', alert: d, at: at + 30_000, person: { userId: `usr_bench_${fp % PEOPLE}`, zone: ZONE } });
    if (i % 200 === 0) facts.push({ kind: 'flap_started', alert: d, at });
    await flush(false);
    if (i > 0 && i % 100_000 === 0) log(`seeded ${i} alerts`);
  }
  await flush(true);

  // Incidents, each with its row of durations.
  const incidentRows: Array<Record<string, unknown>> = [];
  for (let i = 0; i < INCIDENTS; i++) {
    const at = start + Math.floor((i / INCIDENTS) * 365 * DAY);
    const fp = skewed(r, FINGERPRINTS);
    const d = dimsOf(fp);
    const ack = Math.floor(r() * 30 * 60_000);
    const resolve = ack + Math.floor(r() * 6 * 3_600_000);
    const open = i >= INCIDENTS - OPEN_INCIDENTS;
    incidentRows.push({
      id: `inc_bench_${i}`, org_id: orgId, number: i + 1, workflow_id: null, group_key: `g${i}`, title: d.title, severity: d.severity, status: open ? 'triggered' : 'resolved',
      assignee_id: null, alert_count: 1, client_id: d.clientId, acknowledged_at: open ? null : at + ack, resolved_at: open ? null : at + resolve, created_at: at,
      updated_at: open ? at : at + resolve,
    });
    await store.db.transaction().execute(async (trx) => {
      await repo.openIncident(trx, {
        incident_id: `inc_bench_${i}`, org_id: orgId, opened_at: at, severity: d.severity, client_id: d.clientId as string, integration_id: d.integrationId as string,
        labels: JSON.stringify(d.labels), ack_ms: ack, resolve_ms: resolve, page_ms: Math.floor(r() * 120_000),
      });
    });
    facts.push({ kind: 'incident_opened', alert: d, at });
    if (incidentRows.length >= CHUNK) {
      await store.db.insertInto('incidents').values(incidentRows.splice(0) as never).execute();
    }
  }
  if (incidentRows.length > 0) await store.db.insertInto('incidents').values(incidentRows as never).execute();
  await flush(true);
  await store.db.insertInto('incident_counters').values({ org_id: orgId, last_number: INCIDENTS }).execute();
}

interface Timing {
  name: string;
  ms: number[];
}

const pct = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;

async function run(kind: StoreKind): Promise<{ kind: StoreKind; timings: Timing[]; rows: Record<string, number> }> {
  const store = await freshStore(kind);
  const env = childEnv(store.databaseUrl);
  const created = await cliJson<{ org: { id: string }; apiKey: string }>(['org', 'create', '--name', 'Bench', '--json'], env);
  const orgId = created.org.id;
  const conn = await createStore(store.config);
  const now = Date.now();
  try {
    await conn.db.updateTable('orgs').set({ timezone: ZONE }).where('id', '=', orgId).execute();
    const t0 = performance.now();
    await seed(conn, orgId, now);
    log(`${kind}: seeded in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    // As autovacuum would soon after such a load: planner statistics for the new rows.
    await sql.raw(kind === 'postgres' ? 'vacuum analyze' : 'analyze').execute(conn.db);
  } finally {
    await conn.close();
  }
  const rows: Record<string, number> = {};
  {
    const c = await createStore(store.config);
    for (const t of ['alerts', 'incidents', 'analytics_hourly', 'analytics_daily', 'analytics_noisy_daily', 'analytics_noisy_monthly', 'analytics_incidents', 'analytics_pages'] as const) {
      rows[t] = Number((await c.db.selectFrom(t).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    }
    await c.close();
  }
  const server = await startServer(env, SERVER_NODE_FLAGS);
  const key = created.apiKey;
  const iso = (ms: number) => new Date(ms).toISOString();
  const range = (days: number) => `from=${iso(now - days * DAY)}&to=${iso(now)}`;
  const month = new Date(now - 31 * DAY).toISOString().slice(0, 7);
  const queries: Array<[string, string]> = [
    ['volume 24 h by hour', `/api/v1/analytics/volume?${range(1)}&bucket=hour`],
    ['volume 30 d by day, by service', `/api/v1/analytics/volume?${range(30)}&bucket=day&groupBy=label:service`],
    ['volume 7 d by hour, by client', `/api/v1/analytics/volume?${range(7)}&bucket=hour&groupBy=client`],
    ['volume 365 d by month, by client', `/api/v1/analytics/volume?${range(365)}&bucket=month&groupBy=client`],
    ['response times 90 d by week', `/api/v1/analytics/response-times?${range(90)}&bucket=week`],
    ['response times 365 d by month, by service', `/api/v1/analytics/response-times?${range(365)}&bucket=month&groupBy=label:service`],
    ['pages per person 30 d', `/api/v1/analytics/pages-per-person?${range(30)}`],
    ['noisy alerts 30 d', `/api/v1/analytics/noisy-alerts?${range(30)}`],
    ['noisy alerts 365 d by pages', `/api/v1/analytics/noisy-alerts?${range(365)}&by=pages`],
    ['client board', '/api/v1/analytics/client-board'],
    ['client report (a month)', `/api/v1/clients/cli_bench_3/report?period=${month}`],
    ['reference: GET /alerts first page', '/api/v1/alerts?limit=25'],
  ];
  const timings: Timing[] = queries.map(([name]) => ({ name, ms: [] }));
  // One warm-up round, then ROUNDS timed rounds, the queries interleaved so that load changes hit them all alike.
  for (let round = -1; round < ROUNDS; round++) {
    for (const [i, [, url]] of queries.entries()) {
      const t = performance.now();
      await api(server, 'GET', url, key);
      if (round >= 0) (timings[i] as Timing).ms.push(performance.now() - t);
    }
  }
  await server.release();
  await store.release();
  return { kind, timings, rows };
}

if (import.meta.main) try {
  const m = await machine();
  const out: string[] = [];
  for (const kind of kinds) {
    const r = await run(kind);
    const all = r.timings.filter((t) => !t.name.startsWith('reference')).flatMap((t) => t.ms).sort((a, b) => a - b);
    out.push(`${kind}: ${ALERTS} alerts, ${INCIDENTS} incidents; rows ${Object.entries(r.rows).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    out.push('| query | p50 ms | p95 ms |', '|---|---:|---:|');
    for (const t of r.timings) {
      const s = [...t.ms].sort((a, b) => a - b);
      out.push(`| ${t.name} | ${pct(s, 50).toFixed(1)} | ${pct(s, 95).toFixed(1)} |`);
    }
    out.push(`| all analytics queries (${all.length}) | ${pct(all, 50).toFixed(1)} | ${pct(all, 95).toFixed(1)} |`, '');
  }
  console.log([`commit ${m.revision}; ${m.cpus} CPUs (${m.cpuModel}), load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`, '', ...out].join('\n'));
} finally {
  await releaseAll();
}
