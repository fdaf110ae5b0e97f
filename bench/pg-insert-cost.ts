/**
 * What one new alert costs PostgreSQL through ingest's multi-row upsert, at two schema versions:
 * `npx node bench/pg-insert-cost.ts [--rounds 2] [--batch 45] [--batches 400] [--before 0017_alert_fingerprint_indexes]`.
 *
 * Each round and schema gets a fresh database, migrated to `--before` (the schema as it was) or to the latest,
 * then `--batches` statements of `--batch` new alerts (the bench's `new` payload) through `ingestRepo.upsertMany`
 * on one pooled connection. The backend's own CPU (from /proc, so other sessions' load does not count) and the
 * WAL it wrote are divided by the alerts; schemas are interleaved, and the best round of each is printed.
 */
import { sql } from 'kysely';
import { parseArgs } from 'node:util';
import { createStore } from '../src/db/database.ts';
import { migrate } from '../src/db/migrations/index.ts';
import { orderedId } from '../src/lib/ids.ts';
import type { AlertRow } from '../src/modules/alerts/alerts-repo.ts';
import { ingestRepo } from '../src/modules/ingest/ingest-repo.ts';
import { freshStore, procTicks, releaseAll } from './support.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, batch: { type: 'string' }, batches: { type: 'string' }, before: { type: 'string' } } });
const ROUNDS = Number(values.rounds ?? 2);
const BATCH = Number(values.batch ?? 45);
const BATCHES = Number(values.batches ?? 400);
const BEFORE = values.before ?? '0017_alert_fingerprint_indexes';
const TICK_MS = 10;

let sent = 0;
const newAlert = (): AlertRow => {
  const now = Date.now();
  const fp = `fp-${process.pid}-${sent++}`;
  const labels = { host: 'web-1', env: 'bench', service: 'checkout' };
  const description = 'Synthetic alert sent by npm run bench';
  return {
    id: orderedId('alt', now), org_id: 'org_bench', integration_id: 'int_bench', client_id: null, incident_id: null, fingerprint: fp,
    title: `Bench alert ${fp}`, severity: 'high', status: 'firing', source: 'bench', description, labels: JSON.stringify(labels), annotations: '{}',
    payload: JSON.stringify({ title: `Bench alert ${fp}`, severity: 'high', source: 'bench', fingerprint: fp, description, labels }),
    occurrences: 1, last_seen_at: now, acknowledged_at: null, acknowledged_by_type: null, acknowledged_by_id: null, resolved_at: null,
    resolved_by_type: null, resolved_by_id: null, suppression_id: null, created_at: now, updated_at: now,
  };
};

async function measure(upTo: string | undefined): Promise<{ cpuUs: number; walBytes: number }> {
  const bench = await freshStore('postgres');
  const store = await createStore(bench.config as { kind: 'postgres'; url: string });
  try {
    await migrate(store, upTo);
    await sql`insert into orgs (id, name, created_at) values ('org_bench', 'bench', 0)`.execute(store.db);
    const repo = ingestRepo(store);
    const batch = () => repo.upsertMany(Array.from({ length: BATCH }, newAlert));
    // Sequential statements keep to one pooled connection: its backend is the one measured.
    const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(store.db)).rows[0]?.pid as number;
    const lsn = async () => (await sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`.execute(store.db)).rows[0]?.lsn as string;
    for (let i = 0; i < 50; i++) await batch();
    const [ticks0, lsn0] = [procTicks(pid), await lsn()];
    for (let i = 0; i < BATCHES; i++) await batch();
    const [ticks1, lsn1] = [procTicks(pid), await lsn()];
    const wal = (await sql<{ bytes: string }>`select pg_wal_lsn_diff(${lsn1}::pg_lsn, ${lsn0}::pg_lsn)::text as bytes`.execute(store.db)).rows[0]?.bytes;
    const alerts = BATCHES * BATCH;
    return { cpuUs: ((ticks1 - ticks0) * TICK_MS * 1000) / alerts, walBytes: Number(wal) / alerts };
  } finally {
    await store.close();
    await bench.release();
  }
}

const best = new Map<string, { cpuUs: number; walBytes: number }>();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, upTo] of [[`at ${BEFORE}`, BEFORE], ['latest', undefined]] as const) {
      const r = await measure(upTo);
      process.stdout.write(`round ${round}, ${name}: ${r.cpuUs.toFixed(1)} µs backend CPU, ${r.walBytes.toFixed(0)} B WAL per new alert\n`);
      const b = best.get(name);
      best.set(name, { cpuUs: Math.min(b?.cpuUs ?? Infinity, r.cpuUs), walBytes: Math.min(b?.walBytes ?? Infinity, r.walBytes) });
    }
  }
  process.stdout.write(`\n| schema (${BATCH} alerts per statement) | backend CPU per new alert | WAL per new alert |\n|---|---:|---:|\n`);
  for (const [name, b] of best) process.stdout.write(`| ${name} | ${b.cpuUs.toFixed(1)} µs | ${b.walBytes.toFixed(0)} B |\n`);
} finally {
  await releaseAll();
}
