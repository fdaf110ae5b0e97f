/**
 * What the `live_events` triggers cost the SQLite ingest write path: `node bench/live-trigger-cost.ts [--rows 20000] [--rounds 3]`.
 *
 * On a freshly migrated SQLite file it runs ingest's own prepared upserts (new fingerprints, then one fingerprint
 * over and over), 500 per transaction as the group commit does, alternately with the live triggers in place and
 * dropped, and prints the median microseconds per upsert of each. One process and no HTTP, so other work on a
 * shared machine moves both columns alike; the difference is the trigger's insert into `live_events`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openMigratedStore } from '../src/db/migrations/index.ts';
import type { AlertRow } from '../src/modules/alerts/alerts-repo.ts';
import { sqliteStatements } from '../src/modules/ingest/ingest-repo.ts';

const { values } = parseArgs({ options: { rows: { type: 'string' }, rounds: { type: 'string' } } });
const ROWS = Number(values.rows ?? 20_000);
const ROUNDS = Number(values.rounds ?? 3);
const PER_TRANSACTION = 500;
const LIVE_TRIGGERS = ['alerts_live_insert', 'alerts_live_update'];

const dir = mkdtempSync(path.join(os.tmpdir(), 'alertflow-trigger-cost-'));
const { store } = await openMigratedStore({ kind: 'sqlite', file: path.join(dir, 'alertflow.db') });
const raw = store.sqlite!.raw;
const definitions = LIVE_TRIGGERS.map((name) => (raw.prepare('select sql from sqlite_master where name = ?').get(name) as { sql: string }).sql);
raw.exec(`insert into orgs (id, name, created_at) values ('org_bench', 'Bench', 0)`);
const statements = sqliteStatements(raw);

let n = 0;
const row = (fingerprint: string): AlertRow => {
  n += 1;
  return {
    id: `alt_${n}`, org_id: 'org_bench', integration_id: null, client_id: null, incident_id: null, fingerprint, title: `Disk full ${n}`,
    severity: 'high', status: 'firing', source: 'bench', description: null, labels: '{"env":"prod"}', annotations: '{}', payload: '{"title":"x"}',
    occurrences: 1, last_seen_at: n, acknowledged_at: null, acknowledged_by_type: null, acknowledged_by_id: null, resolved_at: null,
    resolved_by_type: null, resolved_by_id: null, suppression_id: null, created_at: n, updated_at: n,
  } as AlertRow;
};

/** Microseconds per upsert over `ROWS` upserts of `fingerprintOf(i)`. */
function run(fingerprintOf: (i: number) => string): number {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < ROWS; i += PER_TRANSACTION) {
    raw.exec('begin immediate');
    for (let j = i; j < Math.min(ROWS, i + PER_TRANSACTION); j++) statements.upsert(row(fingerprintOf(j)), 'firing');
    raw.exec('commit');
  }
  return Number(process.hrtime.bigint() - t0) / 1000 / ROWS;
}

const results = { with: { new: [] as number[], dup: [] as number[] }, without: { new: [] as number[], dup: [] as number[] } };
for (let round = 0; round < ROUNDS; round++) {
  for (const variant of ['with', 'without'] as const) {
    if (variant === 'without') for (const name of LIVE_TRIGGERS) raw.exec(`drop trigger ${name}`);
    results[variant].new.push(run((i) => `fp-${round}-${variant}-${i}`));
    results[variant].dup.push(run(() => `fp-dup-${round}-${variant}`));
    if (variant === 'without') for (const sql of definitions) raw.exec(sql);
    raw.exec('delete from live_events');
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
process.stdout.write(`SQLite upserts, ${ROWS} per run, ${ROUNDS} rounds, median µs per upsert (load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}):\n`);
for (const kind of ['new', 'dup'] as const) {
  const w = median(results.with[kind]);
  const wo = median(results.without[kind]);
  process.stdout.write(`  ${kind}: with live triggers ${w.toFixed(1)} µs, without ${wo.toFixed(1)} µs (+${(w - wo).toFixed(1)} µs, +${(((w - wo) / wo) * 100).toFixed(0)}%)\n`);
}
await store.close();
rmSync(dir, { recursive: true, force: true });
